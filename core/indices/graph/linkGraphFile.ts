// The link graph's file: its notes with their links, each resolved link pointing at its note by ordinal, so
// loading re-resolves nothing. Lines of JSON (a header, then the notes a thousand a line), written and read in
// turns; checked on reading. Versions 1 and 2 were one JSON document, and still load.
import type { LinkKind } from '../../parse/links.js';
import type { TimeSlices } from '../../process/timeSlices.js';
import { eachLine, jsonArrayLines } from '../lineFile.js';
import { OWN_STRINGS, type StringTable } from '../../process/sharedStrings.js';

/** Links as the graph keeps them: a block reference is a link to the note that defines the block. */
export type GraphLinkKind = LinkKind | 'block';

export class LinkGraphCorruptError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LinkGraphCorruptError';
  }
}

const FORMAT = 'cairn-link-graph';
/** 2 added block ids and block links; 3 put the notes in lines. */
const FORMAT_VERSION = 3;
const NOTES_PER_LINE = 1000;

export interface StoredNote {
  path: string;
  title: string;
  aliases: string[];
  blockIds?: string[];
  /** `dest`: the ordinal of the note the link resolves to, if any. */
  links: Array<{ kind: GraphLinkKind; target: string; dest?: number }>;
}

/** The graph's file as pieces to write one after another: the header line, then lines of notes, in turns. */
export async function* linkGraphLines(notes: Iterable<StoredNote>, count: number, turns: TimeSlices): AsyncGenerator<string> {
  yield `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, notes: count })}\n`;
  yield* jsonArrayLines(notes, NOTES_PER_LINE, turns);
}

/**
 * The notes of a saved graph; throws LinkGraphCorruptError unless every note and link is well formed. `strings`:
 * where paths, titles and link targets are shared with the indices loaded alongside (see SharedStrings).
 */
export async function readLinkGraphFile(bytes: Uint8Array, strings: StringTable = OWN_STRINGS): Promise<StoredNote[]> {
  let expected: number | undefined;
  const stored: StoredNote[] = [];
  const paths = new Set<string>();
  const add = (value: unknown) => {
    const note = shareStrings(parseStoredNote(value), strings);
    if (paths.has(note.path)) throw new LinkGraphCorruptError('link graph lists a note twice');
    paths.add(note.path);
    stored.push(note);
  };
  let lines = 0;
  await eachLine(bytes, async (line, lineNumber, turns) => {
    lines++;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (error) {
      throw new LinkGraphCorruptError(`link graph line ${lineNumber} is not valid JSON`, { cause: error });
    }
    if (lines > 1) {
      if (!Array.isArray(data)) throw new LinkGraphCorruptError(`link graph line ${lineNumber} holds no notes`);
      for (const value of data) add(value);
      return;
    }
    const header = data as { format?: unknown; version?: unknown; notes?: unknown } | null;
    if (typeof header !== 'object' || header === null || header.format !== FORMAT) throw new LinkGraphCorruptError('not a link graph');
    const whole = header.version === 1 || header.version === 2;
    if (!whole && header.version !== FORMAT_VERSION) throw new LinkGraphCorruptError(`link graph format version ${String(header.version)}, expected ${FORMAT_VERSION}`);
    if (whole ? !Array.isArray(header.notes) : !(typeof header.notes === 'number' && Number.isSafeInteger(header.notes) && header.notes >= 0)) {
      throw new LinkGraphCorruptError('not a link graph');
    }
    if (!whole) expected = header.notes as number;
    else {
      for (const value of header.notes as unknown[]) {
        add(value);
        if (turns.due()) await turns.next();
      }
    }
  });
  if (lines === 0) throw new LinkGraphCorruptError('link graph is empty');
  if (expected !== undefined && stored.length !== expected) throw new LinkGraphCorruptError(`link graph holds ${stored.length} notes, its header says ${expected}`);
  for (const note of stored) {
    for (const link of note.links) {
      if (link.dest !== undefined && stored[link.dest] === undefined) throw new LinkGraphCorruptError('link graph link points past the notes');
    }
  }
  return stored;
}

function shareStrings(note: StoredNote, strings: StringTable): StoredNote {
  note.path = strings.of(note.path);
  note.title = strings.of(note.title);
  for (const link of note.links) link.target = strings.of(link.target);
  return note;
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
