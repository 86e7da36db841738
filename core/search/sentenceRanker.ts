/**
 * Scores every quotable unit of the retrieved sections against the question and picks the few that answer it. One
 * score for both of its users: hybrid search's second stage ranks chunks by their best unit (ranking/sentenceRerank),
 * and the extractive answer quotes the best units (core/answer).
 *
 * score = 0.45 · cosine(question, unit) + 0.45 · coverage + 0.10 · rank prior, times a form factor (short units
 * and units ending in ":" state less):
 * - cosine: the embedding model's similarity (semantic: "remove" meets "delete");
 * - coverage: IDF-weighted share of the question's content words in the unit (lexical: exact names, options and
 *   commands that word vectors do not know);
 * - rank prior: 1 / (1 + (rank - 1) / 2) of the unit's section in the hybrid search, so ties go to the section
 *   retrieval trusted more.
 * Semantic and lexical agreement weigh the same: each misses what the other finds.
 */
import type { ChunkSummary } from '../contract/search.js';
import { answerUnits, lineCounter, openFencesOf, type AnswerUnit } from './answerUnits.js';
import { coverage, questionTerms, termSet, termWeights } from './termOverlap.js';
import type { AnswerSource } from '../contract/answer.js';
import { isEmptyLike } from '../embedding/emptyText.js';
import { headerPathAt } from './citedPart.js';
import type { TextRole } from '../embedding/embedder.js';

export interface ScoredUnit {
  source: AnswerSource;
  /** Index of the piece (of the section) the unit is in, for reading order. */
  pieceIndex: number;
  piece: ChunkSummary;
  unit: AnswerUnit;
  /** The unit's own lines in the note. */
  startLine: number;
  endLine: number;
  cosine: number;
  coverage: number;
  score: number;
  vector: Float32Array;
  terms: Set<string>;
}

const COSINE_WEIGHT = 0.45;
const COVERAGE_WEIGHT = 0.45;
const RANK_WEIGHT = 0.1;
/** Fewer words than this rarely state anything ("For example:", "See below."). */
const MIN_WORDS = 4;
const SHORT_FACTOR = 0.6;
/** A unit ending in ":" announces what follows (often code, which is never quoted) rather than stating it. */
const ANNOUNCES_FACTOR = 0.85;
/** A unit that quotes the question itself ("ask it things like 'what does X do?'") restates it rather than answers it. */
const ECHO_FACTOR = 0.5;

/** Unit vectors of texts, embedded as queries (default) or as passages (the vault's `embed`). */
type Embed = (texts: readonly string[], as?: TextRole) => Promise<Float32Array[]>;

/**
 * `openAtStart`: the code fence open where a source's first piece begins, when it is itself a later piece of a
 * force-split section (see `openFencesOf`); a whole section begins at its heading, outside code.
 */
export async function scoreUnits(embed: Embed, question: string, sources: readonly AnswerSource[], openAtStart?: (source: AnswerSource) => string | undefined): Promise<ScoredUnit[]> {
  const found: Array<Omit<ScoredUnit, 'cosine' | 'coverage' | 'score' | 'vector' | 'terms'> & { facts: UnitFacts }> = [];
  for (const source of sources) {
    const fences = openFencesOf(source.pieces, openAtStart?.(source));
    source.pieces.forEach((piece, pieceIndex) => {
      for (const facts of unitFactsOf(piece.text, piece.startLine === 1, fences[pieceIndex])) {
        found.push({
          source,
          pieceIndex,
          piece,
          unit: facts.unit,
          startLine: piece.startLine + facts.startLines,
          endLine: piece.startLine + facts.endLines,
          facts,
        });
      }
    });
  }
  if (found.length === 0) return [];

  // The question as a query, the sentences as passages: a model trained with instructions tells them apart. The
  // requests leave now (see Embedder.embed), and the units' terms are worked out while they are embedded.
  const embedded = Promise.all([embed([question, '']), embed(found.map((f) => f.unit.plain), 'passage')]);
  // Handled below; a failure while the terms are worked out must not count as unhandled meanwhile.
  embedded.catch(() => {});
  const words = found.map((f) => wordsOf(f.facts));
  const terms = words.map((w) => w.terms);
  const weights = termWeights(questionTerms(question), terms);
  // A unit's context is the heading it stands under: in a chunk of merged short sections, each its own.
  const contexts = new Map<string, Set<string>>();
  const contextOf = (f: Pick<ScoredUnit, 'source' | 'piece' | 'startLine'>): Set<string> => {
    const heading = `${f.source.title} ${headerPathAt(f.piece, f.startLine).join(' ')}`;
    let terms = contexts.get(heading);
    if (!terms) contexts.set(heading, (terms = termSet(heading)));
    return terms;
  };
  const lexical = found.map((f, i) => coverage(weights, terms[i]!, contextOf(f)));
  const asked = normalized(question);
  const forms = found.map((f, i) => {
    const echoes = asked.length > 0 && words[i]!.normalized.includes(asked);
    return (words[i]!.short ? SHORT_FACTOR : 1) * (f.unit.plain.endsWith(':') ? ANNOUNCES_FACTOR : 1) * (echoes ? ECHO_FACTOR : 1);
  });

  const [[questionVector, emptyVector], vectors] = await embedded;
  const questionKnown = !isEmptyLike(questionVector, emptyVector);
  // One object per unit, made whole (a copy of `found`'s spread into another was two; a search scores some 130 on the 50k scale vault, more in a vault of long sections).
  return found.map(({ source, pieceIndex, piece, unit, startLine, endLine }, i) => {
    const vector = vectors[i];
    const cosine = questionKnown && !isEmptyLike(vector, emptyVector) ? Math.max(0, dot(questionVector, vector)) : 0;
    const prior = 1 / (1 + (source.rank - 1) / 2);
    const score = (COSINE_WEIGHT * cosine + COVERAGE_WEIGHT * lexical[i]! + RANK_WEIGHT * prior) * forms[i]!;
    return { source, pieceIndex, piece, unit, startLine, endLine, cosine, coverage: lexical[i]!, score, vector, terms: terms[i]! };
  });
}

/** What scoring needs of a unit that does not depend on the question. Shared between calls: never changed. */
interface UnitFacts {
  unit: AnswerUnit;
  /** The unit's first and last line, counted from the passage's first line. */
  startLines: number;
  endLines: number;
  /** What its words give (see wordsOf). */
  words?: UnitWords;
}

interface UnitWords {
  /** The stems of its terms. */
  terms: Set<string>;
  /** Fewer than MIN_WORDS words. */
  short: boolean;
  /** Its words in lower case (to see whether it quotes the question). */
  normalized: string;
}

/**
 * The units of recently scored passages, by text, least recently used out first. Every hybrid search scores the
 * units of its best 30 chunks, and working them out (splitting, rendering, tokenising, stemming) was most of the
 * stage's time on the main thread and some 2 MB of garbage a query; the searches a person types one after another
 * and the answer that follows a search meet the same chunks. Bounded by the characters of the texts it holds (a
 * quarter of a million: the chunks of the last few searches, about 2 MB of heap). Unrelated searches rarely meet
 * the same chunks (on the 50k scale vault's sample queries an eighth of them within the last 2,000 scored), so it
 * serves typing and asking, not them. What a text gives never depends on the vault.
 */
const recentFacts = new Map<string, Array<{ atNoteStart: boolean; openFence: string | undefined; facts: UnitFacts[] }>>();
let recentChars = 0;
const MAX_RECENT_CHARS = 250_000;

/** Keyed by the text itself, with how it is read alongside: a key made of both copied every text, each search. */
function unitFactsOf(text: string, atNoteStart: boolean, openFence: string | undefined): UnitFacts[] {
  const readings = recentFacts.get(text);
  const known = readings?.find((r) => r.atNoteStart === atNoteStart && r.openFence === openFence);
  if (readings) {
    recentFacts.delete(text);
    recentFacts.set(text, readings);
  }
  if (known) return known.facts;
  // Starts and ends are each in reading order: a counter for each.
  const startLine = lineCounter(text);
  const endLine = lineCounter(text);
  const facts = answerUnits(text, atNoteStart, openFence).map((unit) => ({ unit, startLines: startLine(unit.start), endLines: endLine(unit.end) }));
  if (readings) readings.push({ atNoteStart, openFence, facts });
  else recentFacts.set(text, [{ atNoteStart, openFence, facts }]);
  recentChars += text.length;
  for (const [oldest, kept] of recentFacts) {
    if (recentChars <= MAX_RECENT_CHARS) break;
    recentFacts.delete(oldest);
    recentChars -= oldest.length * kept.length;
  }
  return facts;
}

/** MIN_WORDS words or more (read without splitting the unit into an array of its words). */
const ENOUGH_WORDS = new RegExp(`\\S+(?:\\s+\\S+){${MIN_WORDS - 1}}`);

/** What a unit's words give, worked out when first needed: scoreUnits asks while its units are embedded. */
function wordsOf(facts: UnitFacts): UnitWords {
  const { plain } = facts.unit;
  return (facts.words ??= { terms: termSet(plain), short: !ENOUGH_WORDS.test(plain), normalized: normalized(plain) });
}

/** Lower case words only: to see whether a unit quotes the question itself. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Picked units score at least this share of the best one: a weak fourth sentence dilutes a good answer. */
const RELATIVE_FLOOR = 0.75;
/** Two units this similar (embedding cosine, or shared-term Jaccard) say the same thing: keep the first. */
const DUPLICATE_COSINE = 0.92;
const DUPLICATE_JACCARD = 0.6;
/** An answer drawn from more sections than this reads as a list of search results. */
const MAX_SOURCES = 3;

/** The best unit of each section (at most MAX_SOURCES), then the next best, at most `max`, without near-duplicates. */
export function pickUnits(scored: readonly ScoredUnit[], max: number): ScoredUnit[] {
  const ranked = [...scored].sort(compareUnits);
  const picked: ScoredUnit[] = [];
  const sources = new Set<AnswerSource>();
  // Each section's best unit first (each section given is to be cited), then the rest by score.
  for (const candidate of ranked) {
    if (picked.length >= max) break;
    if (sources.has(candidate.source) || sources.size >= MAX_SOURCES) continue;
    // Two notes may carry the same paragraph (a copied passage, a shared include): it is quoted once. Only the very
    // same words: a section's best sentence that merely resembles another is still its citation.
    if (picked.some((p) => p.unit.plain.toLowerCase() === candidate.unit.plain.toLowerCase())) continue;
    picked.push(candidate);
    sources.add(candidate.source);
  }
  for (const candidate of ranked) {
    if (picked.includes(candidate)) continue;
    if (picked.length >= max) break;
    if (picked.length > 0 && candidate.score < RELATIVE_FLOOR * picked[0].score) break;
    if (!sources.has(candidate.source) && sources.size >= MAX_SOURCES) continue;
    if (picked.some((p) => isNearDuplicate(p, candidate))) continue;
    picked.push(candidate);
    sources.add(candidate.source);
  }
  return picked;
}

/** Best first; equal scores in the order of retrieval rank, then reading order, so ties never depend on input order. */
export function compareUnits(a: ScoredUnit, b: ScoredUnit): number {
  return b.score - a.score || a.source.rank - b.source.rank || a.pieceIndex - b.pieceIndex || a.unit.start - b.unit.start;
}

function isNearDuplicate(a: ScoredUnit, b: ScoredUnit): boolean {
  if (dot(a.vector, b.vector) > DUPLICATE_COSINE) return true;
  let shared = 0;
  for (const term of a.terms) if (b.terms.has(term)) shared++;
  const union = a.terms.size + b.terms.size - shared;
  return union > 0 && shared / union > DUPLICATE_JACCARD;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
