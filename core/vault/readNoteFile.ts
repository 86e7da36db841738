import { promises as fs, constants as fsConstants } from 'node:fs';
import type { VaultFileEntry } from './scanVault.js';
import { specialFileReason } from './vaultPaths.js';

export interface NoteSource {
  path: string;
  absPath: string;
  text: string;
  size: number;
  mtimeMs: number;
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

  const text = decodeNoteText(entry.path, bytes);
  return { path: entry.path, absPath: entry.absPath, text, size, mtimeMs };
}

function decodeNoteText(path: string, bytes: Buffer): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    throw new NoteReadError(path, 'UTF-16 encoded text is not supported (save the note as UTF-8)');
  }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new NoteReadError(path, 'binary file (contains NUL bytes)');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new NoteReadError(path, 'not valid UTF-8 text (binary file or another encoding)');
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function describeReadError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}
