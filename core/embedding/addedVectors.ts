// The vectors an embedding cache was given since its file was last written. A cold index sets every vector of the
// vault before its save, and the vector index holds each of them already: so they are packed in slabs, and slabs
// past the first few wait in a scratch file for the save (issue 16: memory that does not grow with the vault).
import type { TimeSlices } from '../process/timeSlices.js';
import { ScratchFile } from '../process/scratchFile.js';

/** Vectors per slab: 4,096 at 101 dimensions is 1.6 MB. */
const SLAB_VECTORS = 4096;
/** Full slabs kept in memory before the oldest is written out (about 5 MB at 101 dimensions). */
const HOLD_SLABS = 3;

/**
 * Vectors by hash, in slabs of floats: a vector each as its own array costs more than twice its floats (measured:
 * 50,000 of 101 dimensions, 56 MB resident against 20 MB of floats). Setting a hash again takes a new slot, so a
 * save can tell a vector set while it wrote from the one it wrote. A full slab never changes: it is written to the
 * scratch file whole and read back from there. A slab none of whose vectors is wanted any more is dropped, and once
 * none is wanted at all (after a save, usually) the slabs and the file start again from nothing.
 */
export class AddedVectors {
  private readonly slotOf = new Map<string, number>();
  /** In memory, or undefined once written out (then at `slabAt`). */
  private readonly slabs: Array<Float32Array | undefined> = [];
  private readonly slabAt: number[] = [];
  /** Vectors still wanted in each slab. */
  private readonly wanted: number[] = [];
  private inMemory = 0;
  private nextSlot = 0;
  private file?: Promise<ScratchFile>;
  private writing?: Promise<void>;

  /** Without `scratchDir` every slab stays in memory. */
  constructor(
    private readonly dims: number,
    private scratchDir?: string,
    private readonly holdSlabs = HOLD_SLABS,
  ) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(hash: string): boolean {
    return this.slotOf.has(hash);
  }

  hashes(): IterableIterator<string> {
    return this.slotOf.keys();
  }

  /** A copy of the vector of a hash, or undefined (at once) when it has none. */
  get(hash: string): Promise<Float32Array> | undefined {
    const slot = this.slotOf.get(hash);
    return slot === undefined ? undefined : this.vectorAt(slot);
  }

  set(hash: string, vector: Float32Array): void {
    this.forget(hash);
    const slot = this.nextSlot++;
    const slab = Math.floor(slot / SLAB_VECTORS);
    if (slab === this.slabs.length) {
      this.slabs.push(new Float32Array(SLAB_VECTORS * this.dims));
      this.wanted.push(0);
      this.inMemory++;
    }
    this.slabs[slab]!.set(vector, (slot % SLAB_VECTORS) * this.dims);
    this.wanted[slab]!++;
    this.slotOf.set(hash, slot);
    this.writeIfOver();
  }

  /** Drops the vectors a save wrote (those of `written` it kept, unless set again since), in turns. */
  async forgetWritten(written: ReadonlyMap<string, number>, kept: (hash: string) => boolean, turns: TimeSlices): Promise<void> {
    for (const [hash, slot] of written) {
      if (kept(hash) && this.slotOf.get(hash) === slot) this.forget(hash);
      if (turns.due()) await turns.next();
    }
  }

  /** Each hash's slot now (a save's snapshot), in slot order. */
  slots(): Map<string, number> {
    return new Map(this.slotOf);
  }

  /** The vectors of a snapshot's slots, in its order (slot order: a written slab is read once, whole). */
  async *vectors(slots: ReadonlyMap<string, number>): AsyncGenerator<[string, Float32Array]> {
    let read: { slab: number; floats: Float32Array } | undefined;
    for (const [hash, slot] of slots) {
      const slab = Math.floor(slot / SLAB_VECTORS);
      const floats = this.slabs[slab] ?? (read?.slab === slab ? read.floats : (read = { slab, floats: await this.readSlab(slab) }).floats);
      const offset = (slot % SLAB_VECTORS) * this.dims;
      yield [hash, floats.subarray(offset, offset + this.dims)];
    }
  }

  private forget(hash: string): void {
    const slot = this.slotOf.get(hash);
    if (slot === undefined) return;
    this.slotOf.delete(hash);
    const slab = Math.floor(slot / SLAB_VECTORS);
    // The slab being filled stays, however few of its vectors are wanted.
    if (--this.wanted[slab]! === 0 && slab < this.slabs.length - 1 && this.slabs[slab]) {
      this.slabs[slab] = undefined;
      this.inMemory--;
    }
    if (this.slotOf.size === 0 && !this.writing) this.restart();
  }

  /** Nothing is wanted: back to no slab and no file (the file closes once the reads under way are done). */
  private restart(): void {
    this.slabs.length = 0;
    this.slabAt.length = 0;
    this.wanted.length = 0;
    this.inMemory = 0;
    this.nextSlot = 0;
    const file = this.file;
    this.file = undefined;
    void file?.then(
      (f) => {
        f.live = 0;
        if (f.unused) f.close();
      },
      () => {},
    );
  }

  private async vectorAt(slot: number): Promise<Float32Array> {
    const slab = Math.floor(slot / SLAB_VECTORS);
    const offset = (slot % SLAB_VECTORS) * this.dims;
    const inMemory = this.slabs[slab];
    if (inMemory) return inMemory.slice(offset, offset + this.dims);
    return this.readFloats(this.slabAt[slab]! + offset * 4, this.dims);
  }

  private readSlab(slab: number): Promise<Float32Array> {
    return this.readFloats(this.slabAt[slab]!, SLAB_VECTORS * this.dims);
  }

  /** `count` floats at byte `at` of the scratch file, which stays open meanwhile. */
  private async readFloats(at: number, count: number): Promise<Float32Array> {
    const out = new Float32Array(count);
    const file = await this.file!;
    file.pins++;
    try {
      Buffer.from(out.buffer).set(await file.read(at, out.byteLength));
    } finally {
      this.unpin(file);
    }
    return out;
  }

  private unpin(file: ScratchFile): void {
    file.pins--;
    if (file.unused) file.close();
  }

  /** Writes the oldest full slab held in memory out, while more than `holdSlabs` full ones are held. */
  private writeIfOver(): void {
    const full = this.inMemory - 1;
    if (this.writing || this.scratchDir === undefined || full <= this.holdSlabs) return;
    const dir = this.scratchDir;
    this.writing = this.writeOldest(dir)
      .catch(() => {
        // The slabs stay in memory: a full or read-only disk costs memory here, never a vector.
        this.scratchDir = undefined;
      })
      .finally(() => {
        this.writing = undefined;
        if (this.slotOf.size === 0) this.restart();
        else this.writeIfOver();
      });
  }

  private async writeOldest(dir: string): Promise<void> {
    const slab = this.slabs.findIndex((s) => s !== undefined);
    const floats = this.slabs[slab]!;
    const opening = (this.file ??= ScratchFile.create(dir, 'added-vectors').then((file) => {
      file.live = 1;
      return file;
    }));
    const file = await opening.catch((error: Error) => {
      if (this.file === opening) this.file = undefined;
      throw error;
    });
    const at = await file.append(new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength));
    // Dropped or started again meanwhile: nothing to read back.
    if (this.file !== opening || this.slabs[slab] !== floats) return;
    this.slabAt[slab] = at;
    // Reads from now on go to the file; those that copied from memory already are done.
    this.slabs[slab] = undefined;
    this.inMemory--;
  }
}
