import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes a file so that readers see either the old or the new content, never a part: temp file, fsync, rename. */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string | Uint8Array>): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await writeFile(handle, data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
}
