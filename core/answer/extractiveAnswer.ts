/**
 * The offline answer: the few sentences of the notes that best answer the question, quoted as written, each run
 * of sentences followed by the marker [n] of its source. When even the best sentence does not answer well, the
 * answer says so plainly and lists the closest passages instead: a quote presented as an answer it is not
 * would mislead more than no answer.
 */
import { headerPathAt } from '../search/citedPart.js';
import { plainText } from './answerUnits.js';
import { sourceLabel } from './retrieveSources.js';
import { compareUnits, pickUnits, type ScoredUnit } from './sentenceRanker.js';
import type { Answer, AnswerSource, Citation } from './types.js';

export const NOT_ANSWERED = "Your notes don't seem to answer this directly.";
const CLOSEST_INTRO = 'The closest passages:';
/** Passages listed when the notes do not answer. */
const CLOSEST_PASSAGES = 3;
const SNIPPET_CHARS = 240;

export interface ExtractiveSettings {
  /** [answer] min_confidence: the evidence the best sentence needs. */
  minConfidence: number;
  /** [answer] max_sentences. */
  maxSentences: number;
}

/**
 * How well a sentence answers, 0..1: the mean of its lexical coverage of the question and its embedding cosine.
 *
 * Why the mean, and why 0.5 is the default bar: with the bundled word-vector model, sentences on a neighbouring
 * topic that do not answer reach cosines of 0.6-0.7 ("How long should I bake sourdough bread?" against "Suppose
 * that every Monday you have to go and buy bread." is 0.67), so similarity alone cannot vouch for an answer. The
 * mean reaches 0.5 only when the sentence also shares a real part of the question's weighted content words:
 * half of them at cosine 0.5, a fifth at cosine 0.8; a sentence sharing none of them never does. Measured on the
 * Tasks docs, off-topic questions peak at 0.45 and keyword-style questions whose answer is in the notes
 * reach 0.55-0.97.
 */
export function evidenceOf(unit: Pick<ScoredUnit, 'coverage' | 'cosine'>): number {
  return (unit.coverage + unit.cosine) / 2;
}

export function extractiveAnswer(sources: AnswerSource[], scored: readonly ScoredUnit[], settings: ExtractiveSettings): Answer {
  const picked = pickUnits(scored, settings.maxSentences);
  if (picked.length === 0 || evidenceOf(picked[0]) < settings.minConfidence) return notAnswered(sources, scored);
  const groups = groupBySource(picked);
  const citations = groups.map((units, i) => citationOf(units, i + 1));
  const answer = groups.map((units, i) => `${renderUnits(units)} [${i + 1}]`).join(groups.some((g) => g.some((u) => u.unit.kind !== 'sentence')) ? '\n' : ' ');
  return { answer, mode: 'extractive', confident: true, citations, sources };
}

/** Picked units grouped by source, sources in the order of their best unit, units in reading order. */
function groupBySource(picked: readonly ScoredUnit[]): ScoredUnit[][] {
  const groups = new Map<AnswerSource, ScoredUnit[]>();
  for (const unit of picked) {
    const group = groups.get(unit.source) ?? [];
    group.push(unit);
    groups.set(unit.source, group);
  }
  return [...groups.values()].map((units) => units.sort((a, b) => a.pieceIndex - b.pieceIndex || a.unit.start - b.unit.start));
}

/** Sentences run on as prose; list items and table rows each get a line of their own. */
function renderUnits(units: readonly ScoredUnit[]): string {
  let out = '';
  for (const { unit } of units) {
    if (unit.kind === 'sentence') out += out === '' || out.endsWith('\n') ? unit.plain : ` ${unit.plain}`;
    else out += `${out === '' || out.endsWith('\n') ? '' : '\n'}- ${unit.plain}\n`;
  }
  return out.trimEnd();
}

function citationOf(units: readonly ScoredUnit[], n: number): Citation {
  const { source, piece } = units[0];
  const startLine = Math.min(...units.map((u) => u.startLine));
  return {
    n,
    chunkId: piece.chunkId,
    path: source.path,
    title: source.title,
    // The quote's own heading: a section merged into a longer one is cited by its heading, not the longer one's.
    headerPath: headerPathAt(piece, startLine),
    startLine,
    endLine: Math.max(...units.map((u) => u.endLine)),
    quotes: units.map((u) => ({ text: u.unit.raw, startLine: u.startLine, endLine: u.endLine })),
  };
}

/** The plain "not answered" reply: the closest passages, each by its best sentence (or its opening when none). */
function notAnswered(sources: AnswerSource[], scored: readonly ScoredUnit[]): Answer {
  const bestBySource = new Map<AnswerSource, ScoredUnit>();
  for (const unit of [...scored].sort(compareUnits)) if (!bestBySource.has(unit.source)) bestBySource.set(unit.source, unit);
  const closest: Array<{ citation: Citation; snippet: string }> = [...bestBySource.values()].slice(0, CLOSEST_PASSAGES).map((unit, i) => ({
    citation: citationOf([unit], i + 1),
    snippet: unit.unit.plain,
  }));
  // Sections with nothing quotable (only code, a table of symbols) are still the closest when nothing else is.
  for (const source of sources) {
    if (closest.length >= CLOSEST_PASSAGES) break;
    if (bestBySource.has(source)) continue;
    const piece = source.pieces[0];
    closest.push({
      citation: { n: closest.length + 1, chunkId: piece.chunkId, path: source.path, title: source.title, headerPath: source.headerPath, startLine: piece.startLine, endLine: piece.endLine },
      snippet: plainText(piece.text),
    });
  }
  if (closest.length === 0) return { answer: `${NOT_ANSWERED} No passage of your notes matches it.`, mode: 'extractive', confident: false, citations: [], sources };
  const lines = closest.map(({ citation, snippet }) => {
    const text = snippet.length > SNIPPET_CHARS ? `${snippet.slice(0, SNIPPET_CHARS - 1)}…` : snippet;
    return `[${citation.n}] ${sourceLabel(citation, citation.startLine, citation.endLine)}: "${text}"`;
  });
  return { answer: `${NOT_ANSWERED} ${CLOSEST_INTRO}\n${lines.join('\n')}`, mode: 'extractive', confident: false, citations: closest.map((c) => c.citation), sources };
}
