// The link graph's file: its notes with their links, each resolved link pointing at its note by ordinal, so
// loading re-resolves nothing. JSON, checked on reading.
import type { LinkKind } from '../../parse/links.js';

/** Links as the graph keeps them: a block reference is a link to the note that defines the block. */
export type GraphLinkKind = LinkKind | 'block';

export class LinkGraphCorruptError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LinkGraphCorruptError';
  }
}

const FORMAT = 'cairn-link-graph';
/** 2 added block ids and block links; a version 1 file (neither) still loads. */
const FORMAT_VERSION = 2;

export interface StoredNote {
  path: string;
  title: string;
  aliases: string[];
  blockIds?: string[];
  /** `dest`: the ordinal of the note the link resolves to, if any. */
  links: Array<{ kind: GraphLinkKind; target: string; dest?: number }>;
}

export function linkGraphJson(notes: readonly StoredNote[]): string {
  return JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, notes });
}

/** The notes of a saved graph; throws LinkGraphCorruptError unless every note and link is well formed. */
export function parseLinkGraphJson(json: string): StoredNote[] {
  let data: { format?: unknown; version?: unknown; notes?: unknown };
  try {
    data = JSON.parse(json) as typeof data;
  } catch (error) {
    throw new LinkGraphCorruptError('link graph is not valid JSON', { cause: error });
  }
  if (typeof data !== 'object' || data === null || data.format !== FORMAT || !Array.isArray(data.notes)) {
    throw new LinkGraphCorruptError('not a link graph');
  }
  if (data.version !== FORMAT_VERSION && data.version !== 1) {
    throw new LinkGraphCorruptError(`link graph format version ${String(data.version)}, expected ${FORMAT_VERSION}`);
  }
  const stored = (data.notes as unknown[]).map(parseStoredNote);
  if (new Set(stored.map((note) => note.path)).size !== stored.length) throw new LinkGraphCorruptError('link graph lists a note twice');
  for (const note of stored) {
    for (const link of note.links) {
      if (link.dest !== undefined && stored[link.dest] === undefined) throw new LinkGraphCorruptError('link graph link points past the notes');
    }
  }
  return stored;
}

function parseStoredNote(value: unknown): StoredNote {
  const note = value as Partial<Record<keyof StoredNote, unknown>> | null;
  const ok =
    typeof note === 'object' &&
    note !== null &&
    typeof note.path === 'string' &&
    typeof note.title === 'string' &&
    Array.isArray(note.aliases) &&
    note.aliases.every((alias) => typeof alias === 'string') &&
    (note.blockIds === undefined || (Array.isArray(note.blockIds) && note.blockIds.every((id) => typeof id === 'string'))) &&
    Array.isArray(note.links) &&
    note.links.every(
      (link: { kind?: unknown; target?: unknown; dest?: unknown } | null) =>
        typeof link === 'object' &&
        link !== null &&
        (link.kind === 'wikilink' || link.kind === 'embed' || link.kind === 'markdown' || link.kind === 'block') &&
        typeof link.target === 'string' &&
        link.target.trim() !== '' &&
        (link.dest === undefined || (typeof link.dest === 'number' && Number.isInteger(link.dest))),
    );
  if (!ok) throw new LinkGraphCorruptError('link graph note entry is damaged');
  return note as StoredNote;
}
