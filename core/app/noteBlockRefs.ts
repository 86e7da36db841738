// Where a note's Logseq block references (`((uuid))`, `{{embed ((uuid))}}`) point, for the note view: the note itself
// first, then the note the index says defines each other uuid (read once, remembered by modification time and size).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { BlockRefView } from '../contract/appApi.js';
import { blockRefsIn, collectBlockTexts, resolveBlockRefs } from '../parse/logseqBlocks.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import { lineCounter } from '../parse/lineNumbers.js';
import { parseOutline } from '../parse/outlineBlocks.js';

/** What the scan needs of a vault (CairnVault has it). */
export interface BlockSource {
  readonly vaultPath: string;
  readNote(notePath: string): Promise<{ text: string; mtimeMs: number; size: number }>;
}

interface Block {
  text: string;
  line: number;
}

interface NoteBlocks {
  mtimeMs: number;
  size: number;
  blocks: Map<string, Block>;
}

/** How deep references inside referenced blocks are followed (as indexing resolves them). */
const REF_DEPTH = 3;

/** Per vault: each note's `id::` blocks, as last read. */
const cache = new WeakMap<BlockSource, Map<string, NoteBlocks>>();

/** The `id::` blocks of a note's text: uuid → its own text (references left as written) and 1-based line. */
export function blocksOf(text: string): Map<string, Block> {
  const outline = parseOutline(text, parseFrontmatter(text).end);
  const texts = collectBlockTexts(text, outline);
  const blocks = new Map<string, Block>();
  if (Object.keys(texts).length === 0) return blocks;
  const lineOf = lineCounter(text);
  for (const block of outline.blocks) {
    const id = block.properties.id?.toLowerCase();
    if (id && Object.hasOwn(texts, id) && !blocks.has(id)) blocks.set(id, { text: texts[id], line: lineOf(block.start) });
  }
  return blocks;
}

/**
 * The blocks `text` (the note at `notePath`) references, uuid → where and what. `locate` names the note defining a
 * uuid (the index's block map); only those notes are read, references inside referenced blocks included.
 */
export async function resolveNoteBlockRefs(
  vault: BlockSource,
  notePath: string,
  text: string,
  locate: (uuid: string) => string | undefined,
): Promise<Record<string, BlockRefView>> {
  const wanted = blockRefsIn(text);
  if (wanted.length === 0) return {};
  const found = new Map<string, BlockRefView>();
  const take = (source: string, blocks: Map<string, Block>) => {
    for (const [uuid, block] of blocks) if (!found.has(uuid)) found.set(uuid, { path: source, text: block.text, line: block.line });
  };
  take(notePath, blocksOf(text));
  const read = new Set([notePath]);
  // References inside referenced blocks, as deep as they are resolved when indexing.
  for (let depth = 0, pending = wanted; depth <= REF_DEPTH && pending.length; depth++) {
    const notes = new Set(pending.filter((uuid) => !found.has(uuid)).map(locate).filter((p): p is string => p !== undefined && !read.has(p)));
    for (const p of notes) {
      read.add(p);
      const blocks = await cachedBlocks(vault, p);
      if (blocks) take(p, blocks);
    }
    pending = pending.flatMap((uuid) => (found.has(uuid) ? blockRefsIn(found.get(uuid)!.text) : []));
  }
  const lookup = (uuid: string) => found.get(uuid.toLowerCase())?.text;
  const result: Record<string, BlockRefView> = {};
  for (const uuid of wanted) {
    const block = found.get(uuid);
    if (block) Object.defineProperty(result, uuid, { value: { ...block, text: resolveBlockRefs(block.text, lookup) }, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

async function cachedBlocks(vault: BlockSource, notePath: string): Promise<Map<string, Block> | undefined> {
  let notes = cache.get(vault);
  if (!notes) cache.set(vault, (notes = new Map()));
  try {
    const info = await stat(path.join(vault.vaultPath, notePath));
    const known = notes.get(notePath);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known.blocks;
    const source = await vault.readNote(notePath);
    const entry = { mtimeMs: source.mtimeMs, size: source.size, blocks: blocksOf(source.text) };
    notes.set(notePath, entry);
    return entry.blocks;
  } catch {
    notes.delete(notePath);
    return undefined;
  }
}

