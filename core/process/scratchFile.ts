// A scratch file: what a long indexing pass would otherwise hold in memory until its save (pending chunk texts,
// vectors set since the cache was written) waits here instead.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Opened, then unlinked at once where the system allows it (POSIX, and Windows for files Node opens), so nothing is
 * left behind should the process die; written and read through its one handle. Its users count what is in it
 * (`live`) and what is using it (`pins`), and close it once `unused`.
 */
export class ScratchFile {
  /** Bytes written or reserved. */
  bytes = 0;
  /** Entries in the file that are still wanted. */
  live = 0;
  /** Reads, writes and saves using it now. */
  pins = 0;
  private closed = false;

  private constructor(
    readonly handle: FileHandle,
    /** Its name while it had one: in messages, and removed on close if it could not be unlinked at once. */
    readonly file: string,
    private readonly unlinked: boolean,
  ) {}

  static async create(dir: string, prefix: string): Promise<ScratchFile> {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `.${prefix}-${process.pid}-${randomBytes(6).toString('hex')}`);
    const handle = await open(file, 'w+');
    const unlinked = await rm(file).then(
      () => true,
      () => false,
    );
    return new ScratchFile(handle, file, unlinked);
  }

  get unused(): boolean {
    return this.live === 0 && this.pins === 0;
  }

  /** Appends these bytes (their place is taken at once, so appends may overlap); resolves to where they start. */
  async append(bytes: Uint8Array): Promise<number> {
    const at = this.bytes;
    this.bytes += bytes.length;
    this.pins++;
    try {
      await this.handle.write(bytes, 0, bytes.length, at);
    } finally {
      this.pins--;
    }
    return at;
  }

  /** Reads `bytes` bytes at `at` (fewer if the file ends first). */
  async read(at: number, bytes: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(bytes);
    const { bytesRead } = await this.handle.read(buffer, 0, bytes, at);
    return buffer.subarray(0, bytesRead);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.handle
      .close()
      .then(() => (this.unlinked ? undefined : rm(this.file, { force: true })))
      .catch(() => {});
  }
}
