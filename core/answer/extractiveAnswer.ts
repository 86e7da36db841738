/**
 * The offline answer: the few sentences of the notes that best answer the question, quoted as written, each run
 * of sentences followed by the marker [n] of its source. When even the best sentence does not answer well, the
 * answer says so plainly and lists the closest passages instead: a quote presented as an answer it is not
 * would mislead more than no answer.
 */
import { headerPathAt } from '../search/citedPart.js';
import { plainText } from '../search/answerUnits.js';
import { sourceLabel } from './retrieveSources.js';
import { compareUnits, pickUnits, type ScoredUnit } from '../search/sentenceRanker.js';
import type { SectionEvidence } from './sectionEvidence.js';
import type { Answer, AnswerSource, Citation } from '../contract/answer.js';

export const NOT_ANSWERED = "Your notes don't seem to answer this directly.";
const CLOSEST_INTRO = 'The closest passages:';
/** Passages listed when the notes do not answer. */
const CLOSEST_PASSAGES = 3;
const SNIPPET_CHARS = 240;

export interface ExtractiveSettings {
  /** [answer] min_confidence: the evidence (see sectionEvidence) a section needs to be quoted as the answer. */
  minConfidence: number;
  /** [answer] max_sentences. */
  maxSentences: number;
}

/** The answer draws on the search's best few sections: beyond them it reads as a list of search results. */
const ANSWER_SECTIONS = 3;
/** A further section joins the answer when its evidence is at least this share of the best section's. */
const SECTION_FLOOR = 0.75;
/**
 * A section looks relevant, though under the bar, when it shares at least MIN_SHARED_TERMS of the question's
 * content words and its evidence reaches PLAUSIBLE_SHARE of [answer] min_confidence, or when it holds at least
 * MIN_NAMED_TERMS of them: it is on the question's subject even when it words it differently (see
 * sectionEvidence). An off-topic question meets a section on two words at most.
 */
const PLAUSIBLE_SHARE = 0.8;
const MIN_SHARED_TERMS = 2;
const MIN_NAMED_TERMS = 3;

export function looksRelevant(judged: SectionEvidence | undefined, minConfidence: number): boolean {
  if (!judged || judged.score === 0) return false;
  if (judged.score >= minConfidence) return true;
  if (judged.sharedTerms >= MIN_SHARED_TERMS && judged.score >= PLAUSIBLE_SHARE * minConfidence) return true;
  return judged.sharedTerms >= MIN_NAMED_TERMS;
}

/**
 * The search already found the passage; the answer quotes it. Among the top sections, those with enough
 * evidence each give their best sentence (so each is cited), then their next best fill up to max_sentences.
 *
 * Which sections: those that answer with confidence (evidence at least [answer] min_confidence), the search's
 * top-ranked quotable section whenever it looks relevant (the search trusted it most, so an answer that leaves it
 * out drops what the search found), any section that looks relevant ranked above one of those, and any whose best
 * sentence scores at least SECTION_FLOOR of the best chosen section's. When no
 * section reaches the bar but some look relevant, the answer quotes those: "your notes don't seem to answer this"
 * is for questions where the search found nothing that looks relevant.
 */
export function extractiveAnswer(sources: AnswerSource[], scored: readonly ScoredUnit[], evidence: ReadonlyMap<AnswerSource, SectionEvidence>, settings: ExtractiveSettings): Answer {
  const score = (s: AnswerSource) => evidence.get(s)?.score ?? 0;
  const plausible = (s: AnswerSource) => looksRelevant(evidence.get(s), settings.minConfidence);
  const top = sources.slice(0, ANSWER_SECTIONS);
  const strong = top.filter((s) => score(s) >= settings.minConfidence);
  const candidates = strong.length > 0 ? strong : top.filter(plausible);
  const best = Math.max(0, ...candidates.map(score));
  const chosen = new Set(candidates.filter((s) => score(s) >= SECTION_FLOOR * best));
  // The top-ranked section with something to quote (a section of only code has nothing).
  const first = top.find((s) => score(s) > 0);
  // It joins whenever it looks relevant, and always when the answer rests on sections that only look relevant:
  // then none is vouched for by its own evidence, and the search's order is the better judge among them.
  if (chosen.size > 0 && first && (plausible(first) || strong.length === 0)) chosen.add(first);
  // Nor does it pass over a section that looks relevant to quote one the search ranked below it.
  const lowest = Math.max(0, ...[...chosen].map((s) => s.rank));
  for (const s of top) if (s.rank < lowest && plausible(s)) chosen.add(s);
  // Nor a section whose best sentence answers about as well as the best chosen one: a question worded unlike its
  // section (a paraphrase) leaves the section's own evidence low while one of its sentences answers it.
  if (chosen.size > 0) {
    const bestUnit = new Map<AnswerSource, number>();
    for (const u of scored) bestUnit.set(u.source, Math.max(bestUnit.get(u.source) ?? 0, u.score));
    const bestChosen = Math.max(0, ...[...chosen].map((s) => bestUnit.get(s) ?? 0));
    for (const s of top) if ((bestUnit.get(s) ?? 0) >= SECTION_FLOOR * bestChosen) chosen.add(s);
  }
  const picked = pickUnits(scored.filter((u) => chosen.has(u.source)), settings.maxSentences);
  if (picked.length === 0) return notAnswered(sources, scored);
  const groups = groupBySource(picked);
  const citations = groups.map((units, i) => citationOf(units, i + 1));
  const answer = groups.map((units, i) => renderUnits(units, i + 1)).join(groups.some((g) => g.some((u) => u.unit.kind !== 'sentence')) ? '\n' : ' ');
  return { answer, mode: 'extractive', confident: true, citations, sources };
}

/**
 * Picked units grouped by source and, within a source, by the heading each stands under (a short section merged
 * into its neighbour's chunk keeps its own heading): each group is one citation [n] naming its own heading.
 * Groups in the search's order of their sources, then reading order; units in reading order.
 */
function groupBySource(picked: readonly ScoredUnit[]): ScoredUnit[][] {
  const groups = new Map<string, ScoredUnit[]>();
  const ordered = [...picked].sort((a, b) => a.source.rank - b.source.rank || a.pieceIndex - b.pieceIndex || a.unit.start - b.unit.start);
  for (const unit of ordered) {
    const key = `${unit.source.rank}\u0000${headerPathAt(unit.piece, unit.startLine).join('\u0000')}`;
    const group = groups.get(key) ?? [];
    group.push(unit);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Sentences run on as prose ended by the marker; list items and table rows each get a line and a marker of their own. */
function renderUnits(units: readonly ScoredUnit[], n: number): string {
  const lines: string[] = [];
  let prose = '';
  for (const { unit } of units) {
    if (unit.kind === 'sentence') {
      prose += prose === '' ? unit.plain : ` ${unit.plain}`;
      continue;
    }
    if (prose) lines.push(`${prose} [${n}]`);
    prose = '';
    lines.push(`- ${unit.plain} [${n}]`);
  }
  if (prose) lines.push(`${prose} [${n}]`);
  return lines.join('\n');
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
    ...(source.sameText ? { sameText: source.sameText } : {}),
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
