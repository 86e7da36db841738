import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DigestingCounter, type FileDigest } from '../embedding/fileDigest.js';

/**
 * Writes a file so that readers see either the old or the new content, never a part: temp file, fsync, rename.
 * Pieces of an iterable (or an async one) are written one by one (the event loop runs between them), and hashed on the way: returns
 * the size and SHA-256 of what was written (recorded in the manifest, checked on open).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<FileDigest> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w');
  const digest = new DigestingCounter();
  const counted = async function* (pieces: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>) {
    for await (const piece of pieces) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
      digest.add(bytes);
      yield bytes;
    }
  };
  try {
    await writeFile(handle, typeof data === 'string' || data instanceof Uint8Array ? counted([data]) : counted(data));
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
  return digest.digest();
}
