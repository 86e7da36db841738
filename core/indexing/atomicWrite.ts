import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file so that readers see either the old or the new content, never a part: temp file, fsync, rename.
 * Pieces of an iterable are written one by one (the event loop runs between them). Returns the bytes written.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string | Uint8Array>): Promise<number> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w');
  let size = 0;
  const counted = function* (pieces: Iterable<string | Uint8Array>) {
    for (const piece of pieces) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
      size += bytes.byteLength;
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
  return size;
}
