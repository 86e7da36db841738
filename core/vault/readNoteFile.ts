import { promises as fs, constants as fsConstants } from 'node:fs';
import iconv from 'iconv-lite';
import type { VaultFileEntry } from './scanVault.js';
import { specialFileReason } from './vaultPaths.js';

export interface NoteSource {
  path: string;
  absPath: string;
  text: string;
  size: number;
  mtimeMs: number;
  /** How the bytes were read when they were not the UTF-8 a note should be (see `decodeNoteText`): listed with the note. */
  notice?: string;
}

export class NoteReadError extends Error {
  readonly reason: string;
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`Cannot read note ${path}: ${reason}`);
    this.name = 'NoteReadError';
    this.reason = reason;
  }
}

const BINARY_SNIFF_BYTES = 8192;
// ignoreBOM keeps the BOM in the output so stripping it stays explicit below.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export async function readNoteFile(entry: VaultFileEntry): Promise<NoteSource> {
  let bytes: Buffer;
  let size: number;
  let mtimeMs: number;
  try {
    // One handle for stat and read so size/mtime describe the bytes actually read. Non-blocking, because opening
    // a FIFO (a file swapped for one after the scan) would otherwise wait forever for a writer; regular files ignore it.
    const handle = await fs.open(entry.absPath, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new NoteReadError(entry.path, specialFileReason(stats) ?? 'not a regular file');
      bytes = await handle.readFile();
      size = bytes.length;
      mtimeMs = stats.mtimeMs;
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NoteReadError) throw error;
    throw new NoteReadError(entry.path, describeReadError(error));
  }

  const { text, notice } = decodeNoteText(entry.path, bytes);
  return { path: entry.path, absPath: entry.absPath, text, size, mtimeMs, ...(notice ? { notice } : {}) };
}

/**
 * A note's text from its bytes. UTF-8 (a BOM dropped); UTF-16 when a byte order mark says so (Windows Notepad's
 * "Unicode"). Bytes that are not UTF-8 are read rather than the note lost, when it is clear what they are: mostly
 * UTF-8 with a few stray bytes (a bad paste), shown as U+FFFD; or, with no UTF-8 sequence in it at all, mostly-ASCII
 * text in Windows-1252 (notes written by older Windows editors: accents and curly quotes). Either way the note comes
 * with a notice. Anything else (NUL bytes, text mostly outside ASCII in an unknown encoding) is refused, named.
 */
export function decodeNoteText(path: string, bytes: Uint8Array): { text: string; notice?: string } {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  if (utf16) {
    try {
      // The decoder drops the byte order mark.
      return { text: new TextDecoder(utf16, { fatal: true }).decode(bytes) };
    } catch {
      throw new NoteReadError(path, `UTF-16 text (${utf16 === 'utf-16le' ? 'little' : 'big'}-endian byte order mark) with damaged characters: save the note as UTF-8`);
    }
  }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new NoteReadError(path, 'binary file (contains NUL bytes)');
  }
  let text: string;
  let notice: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    const shape = nonAsciiShape(bytes);
    if (shape.utf8Sequences > shape.strayBytes) {
      text = lenientUtf8.decode(bytes);
      notice = `${shape.strayBytes} ${shape.strayBytes === 1 ? 'byte is' : 'bytes are'} not valid UTF-8: shown as \ufffd`;
    } else if (shape.utf8Sequences === 0 && shape.nonAscii <= MAX_LEGACY_SHARE * bytes.length) {
      // iconv-lite, not TextDecoder: Node's 'windows-1252' decoder reads 0x80–0x9F as Latin-1 controls, not “ ” – €.
      text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'windows-1252');
      notice = 'not UTF-8: read as Windows-1252 (Western European); save the note as UTF-8 if its accents look wrong';
    } else {
      throw new NoteReadError(path, 'not valid UTF-8 text, nor mostly-ASCII Windows-1252 text (another encoding or a binary file): save the note as UTF-8');
    }
  }
  text = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return notice ? { text, notice } : { text };
}

const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });
/**
 * The most of a file's bytes that may lie outside ASCII for it to be read as Windows-1252: Western European prose
 * has a few accented letters in a hundred (French about 4%); text in Cyrillic, Greek or East Asian encodings is
 * mostly such bytes, and reading it as Windows-1252 would index nonsense.
 */
const MAX_LEGACY_SHARE = 0.2;

/** Over the bytes outside ASCII: how many there are, the well-formed UTF-8 sequences among them, and the bytes in none. */
function nonAsciiShape(bytes: Uint8Array): { nonAscii: number; utf8Sequences: number; strayBytes: number } {
  let nonAscii = 0;
  let utf8Sequences = 0;
  let strayBytes = 0;
  for (let i = 0; i < bytes.length; i++) {
    const lead = bytes[i]!;
    if (lead < 0x80) continue;
    const length = utf8SequenceAt(bytes, i);
    if (length === 0) {
      nonAscii++;
      strayBytes++;
    } else {
      nonAscii += length;
      utf8Sequences++;
      i += length - 1;
    }
  }
  return { nonAscii, utf8Sequences, strayBytes };
}

/** The length of the well-formed UTF-8 sequence (Unicode Table 3-7) of more than one byte at `i`, or 0. */
function utf8SequenceAt(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  const [length, low, high] =
    lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
    : lead === 0xe0 ? [3, 0xa0, 0xbf]
    : lead === 0xed ? [3, 0x80, 0x9f]
    : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
    : lead === 0xf0 ? [4, 0x90, 0xbf]
    : lead === 0xf4 ? [4, 0x80, 0x8f]
    : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
    : [0, 0, 0];
  if (length === 0 || i + length > bytes.length) return 0;
  const second = bytes[i + 1]!;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  return length;
}

function describeReadError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}
