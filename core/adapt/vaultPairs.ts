/**
 * Training pairs mined from a vault's own indexed text (an index's notes.jsonl), for adapting a static table to
 * the vault's vocabulary. Only the notes' text is read, never any question:
 *
 *   - heading: the note title and header path of a chunk -> the chunk's body (its heading lines left out, so the
 *     pair teaches which body words go with which heading words, not that a word matches itself);
 *   - inverse cloze (Lee, Chang & Toutanova 2019): one sentence or list item of a chunk -> the header path plus the
 *     rest of the chunk, the way a question is about the passage it came from without repeating it.
 *
 * Texts are cut into units (sentences, list items, other blocks) and each unit is tokenised once; a pair's sides
 * are concatenations of unit ids. For a whole-word vocabulary with BERT basic tokenisation (split at whitespace and
 * punctuation) that is exactly the tokenisation of the joined text, and it tokenises the vault once, not once per pair.
 *
 * Deterministic for a seed, whatever order the notes come in; held-out pairs are whole chunks (a chunk's pairs are
 * all held out or all trained), so the held-out figure is not inflated by a passage the training already saw.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { shownText } from '../chunking/shownText.js';
import { eachLine } from '../indices/lineFile.js';
import type { NoteRecord, StoredChunk } from '../indexing/noteStore.js';
import { parseTextsLine, TextLineReader, textsFileBeside, type ChunkTexts } from '../indexing/textStore.js';
import { seededRandom } from '../random/seededRandom.js';
import { shuffle, type TokenPair } from './contrastiveTrainer.js';

export interface MiningOptions {
  seed: number;
  /** At most this many pairs in all (whole chunks in a seeded order when more are mined): bounds time and memory. */
  maxPairs: number;
  /** Share of chunks whose pairs are held out. */
  heldOutShare: number;
  /** At most this many held-out pairs (their MRR costs held-out² per check). */
  maxHeldOut: number;
  /** Cloze pairs taken per chunk at most (sentences picked at random): a long chunk must not dominate. */
  clozePerChunk: number;
  /** Fewer known tokens than this on the query side: the pair says nothing. */
  minQueryTokens: number;
  minPassageTokens: number;
  /** Passages are cut to the model's window. */
  maxTokens: number;
}

export const DEFAULT_MINING: MiningOptions = {
  seed: 12,
  maxPairs: 20_000,
  heldOutShare: 0.1,
  maxHeldOut: 1000,
  clozePerChunk: 3,
  minQueryTokens: 2,
  minPassageTokens: 8,
  maxTokens: 510,
};

export interface MinedPairs {
  train: TokenPair[];
  heldOut: TokenPair[];
  /** Pairs found before sampling down to maxPairs. */
  found: number;
}

/** Token ids of the known words of a text (special tokens and unknown words left out: they are zero rows). */
export type Tokenize = (text: string) => Int32Array;

const HEADING_LINE = /^ {0,3}#{1,6}(\s|$)/;
const FENCE = /^ {0,3}(```|~~~)/;
const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+/;
// Blocks that are not prose: tables, HTML, quotes' markers stay in the passage but are never a cloze query.
const NOT_PROSE = /^\s*(\||<|\{\{|\[[^\]]*\]:)/;
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

export interface ChunkUnits {
  /** Units that can be a cloze query: sentences of prose paragraphs, list items. */
  candidates: boolean[];
  units: string[];
}

/**
 * A chunk's body cut into units, in order: heading lines dropped; fenced code one unit (never a query); prose
 * paragraphs into sentences; lists into items; anything else one unit per block.
 */
export function chunkUnits(text: string): ChunkUnits {
  const units: string[] = [];
  const candidates: boolean[] = [];
  const push = (unit: string, candidate: boolean) => {
    const u = unit.trim();
    if (u) {
      units.push(u);
      candidates.push(candidate);
    }
  };
  const lines = text.split('\n');
  let block: string[] = [];
  const flush = () => {
    if (block.length === 0) return;
    const para = block.join('\n');
    block = [];
    if (NOT_PROSE.test(para)) return push(para, false);
    if (LIST_ITEM.test(para)) {
      let item: string[] = [];
      for (const line of para.split('\n')) {
        if (LIST_ITEM.test(line) && item.length) {
          push(item.join(' ').replace(LIST_ITEM, ''), true);
          item = [];
        }
        item.push(line);
      }
      return push(item.join(' ').replace(LIST_ITEM, ''), true);
    }
    for (const s of sentences.segment(para.replace(/\s+/g, ' '))) push(s.segment, true);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      flush();
      const fence = line.trim().slice(0, 3);
      const code = [line];
      while (++i < lines.length && !lines[i].trim().startsWith(fence)) code.push(lines[i]);
      push(code.slice(1).join('\n'), false);
    } else if (HEADING_LINE.test(line)) flush();
    else if (line.trim() === '') flush();
    else block.push(line);
  }
  flush();
  return { units, candidates };
}

function concat(parts: readonly Int32Array[], max: number): Int32Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Int32Array(Math.min(n, max));
  let at = 0;
  for (const p of parts) {
    if (at >= out.length) break;
    const take = Math.min(p.length, out.length - at);
    out.set(take === p.length ? p : p.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** A chunk's place in the seeded order, from its id and the seed alone: nothing depends on the order notes are read in. */
function chunkKey(chunkId: string, seed: number): number {
  return createHash('sha256').update(`${seed}\0${chunkId}`).digest().readUInt32BE(0);
}

interface KeyedPair extends TokenPair {
  key: number;
}

/**
 * Collects a vault's pairs one note at a time (so a large vault's records need not all be held), then samples them:
 * whole chunks in a seeded order, so the result is the same whatever order the notes came in.
 */
export class PairMiner {
  private readonly o: MiningOptions;
  private readonly train: KeyedPair[] = [];
  private readonly heldOut: KeyedPair[] = [];

  constructor(
    private readonly tokenize: Tokenize,
    options: Partial<MiningOptions> = {},
  ) {
    this.o = { ...DEFAULT_MINING, ...options };
  }

  add(note: MinedNote): void {
    const { o, tokenize } = this;
    const titleIds = tokenize(note.title);
    for (const chunk of note.chunks) {
      const key = chunkKey(chunk.id, o.seed);
      const into = key / 2 ** 32 < o.heldOutShare ? this.heldOut : this.train;
      const pathIds = tokenize(chunk.headerPath.join(' \n '));
      const { units, candidates } = chunkUnits(shownText(chunk));
      const unitIds = units.map(tokenize);
      const usable = (p: TokenPair) => p.q.length >= o.minQueryTokens && p.p.length >= o.minPassageTokens;
      const heading = { q: concat([titleIds, pathIds], o.maxTokens), p: concat(unitIds, o.maxTokens), key };
      if (usable(heading)) into.push(heading);
      const picks = unitIds.map((_, i) => i).filter((i) => candidates[i] && unitIds[i].length >= o.minQueryTokens * 2);
      for (const i of shuffle(picks, seededRandom(key)).slice(0, o.clozePerChunk)) {
        const cloze = { q: unitIds[i], p: concat([pathIds, ...unitIds.filter((_, j) => j !== i)], o.maxTokens), key };
        if (usable(cloze)) into.push(cloze);
      }
    }
  }

  /** The sample: at most maxPairs in all, held-out pairs in proportion (and at most maxHeldOut). */
  result(): MinedPairs {
    const { o, train, heldOut } = this;
    const found = train.length + heldOut.length;
    // Stable sorts by chunk key: a chunk's pairs stay in the order they were made.
    const ordered = (pairs: KeyedPair[]) => pairs.sort((a, b) => a.key - b.key).map(({ q, p }) => ({ q, p }));
    const keepTrain = Math.min(train.length, Math.round((o.maxPairs * train.length) / Math.max(1, found)));
    const keepHeldOut = Math.min(heldOut.length, o.maxHeldOut, o.maxPairs - keepTrain);
    return { train: ordered(train).slice(0, keepTrain), heldOut: ordered(heldOut).slice(0, keepHeldOut), found };
  }
}

/** Mines pairs from note records, in any order. */
export function minePairs(records: Iterable<MinedNote>, tokenize: Tokenize, options: Partial<MiningOptions> = {}): MinedPairs {
  const miner = new PairMiner(tokenize, options);
  for (const record of records) miner.add(record);
  return miner.result();
}

/** A note as mining reads it: its title, and its chunks' ids, header paths and texts. */
export interface MinedNote {
  title: string;
  chunks: ReadonlyArray<Pick<StoredChunk, 'id' | 'headerPath'> & ChunkTexts>;
}

/** A saved note record with its chunks' texts. */
export type RecordWithTexts = Omit<NoteRecord, 'chunks'> & { chunks: Array<StoredChunk & ChunkTexts> };

/**
 * Each note record of a persisted index's notes.jsonl (a header line, then one NoteRecord a line) with its chunks'
 * texts, read from the text store beside it in one pass; `each` gets it and its number (of `total`).
 */
async function eachSavedNote(notesFile: string, each: (record: RecordWithTexts, n: number, total: number) => void): Promise<void> {
  const records: NoteRecord[] = [];
  await eachLine(await readFile(notesFile), (line, n) => {
    if (n === 1) return;
    const r = JSON.parse(line) as NoteRecord;
    if (typeof r?.path === 'string' && Array.isArray(r.chunks)) records.push(r);
  });
  const textsFile = textsFileBeside(notesFile);
  const lines = new TextLineReader(textsFile);
  try {
    for (const [n, record] of records.entries()) {
      const chunks: Array<StoredChunk & ChunkTexts> = [];
      for (const chunk of record.chunks) chunks.push({ ...chunk, ...parseTextsLine(await lines.line({ at: chunk.textAt, bytes: chunk.textBytes }), textsFile, chunk.textAt) });
      each({ ...record, chunks }, n + 1, records.length);
    }
  } finally {
    await lines.close();
  }
}

/** Mines pairs from a persisted index's notes.jsonl and its text store, a note at a time. */
export async function mineNotesFile(notesFile: string, tokenize: Tokenize, options: Partial<MiningOptions> = {}, onProgress?: (done: number, total: number) => void): Promise<MinedPairs> {
  const miner = new PairMiner(tokenize, options);
  await eachSavedNote(notesFile, (record, n, total) => {
    miner.add(record);
    onProgress?.(n, total);
  });
  return miner.result();
}

/** All note records of a persisted index's notes.jsonl, with their chunks' texts. */
export async function readNoteRecords(notesFile: string): Promise<RecordWithTexts[]> {
  const records: RecordWithTexts[] = [];
  await eachSavedNote(notesFile, (record) => records.push(record));
  return records;
}
