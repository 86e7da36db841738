// MiniSearch's field-length table (chunk short id → each field's count of distinct terms) in typed arrays: two bytes
// a field, instead of a Map entry and an array per chunk (about 200 bytes: some 200 MB at a million chunks).

/**
 * A Map as MiniSearch uses its `_fieldLength`: it adds a row by setting an empty array and filling it in
 * (`addFieldLength`), so the last row set is held as given until `seal` copies it into the table (ChunkPostings
 * seals after each add). Reading a sealed row gives a new array. 16 bits hold any length: a field's distinct terms
 * are at most half its characters, and a chunk's at most [chunking] max_chunk_chars (100,000); longer is clamped.
 */
export class FieldLengthTable extends Map<number, number[]> {
  private lengths = new Uint16Array(0);
  private present = new Uint8Array(0);
  private rows = 0;
  private unsealed?: { doc: number; row: number[] };

  constructor(private readonly fields: number) {
    super();
  }

  override get size(): number {
    return this.rows;
  }

  /** A sealed row's length in a field (0 for a row not in the table): what scoring reads. */
  lengthAt(doc: number, fieldId: number): number {
    return this.lengths[doc * this.fields + fieldId] ?? 0;
  }

  override has(doc: number): boolean {
    return this.present[doc] === 1;
  }

  override get(doc: number): number[] | undefined {
    if (this.unsealed?.doc === doc) return this.unsealed.row;
    if (this.present[doc] !== 1) return undefined;
    return Array.from(this.lengths.subarray(doc * this.fields, (doc + 1) * this.fields));
  }

  override set(doc: number, row: number[]): this {
    this.seal();
    if (doc >= this.present.length) this.grow(doc);
    if (this.present[doc] !== 1) this.rows++;
    this.present[doc] = 1;
    this.unsealed = { doc, row };
    return this;
  }

  /** Copies the row set last into the table. */
  seal(): void {
    const open = this.unsealed;
    if (!open) return;
    this.unsealed = undefined;
    if (this.present[open.doc] !== 1) return;
    for (let f = 0; f < this.fields; f++) this.lengths[open.doc * this.fields + f] = Math.min(open.row[f] ?? 0, 0xffff);
  }

  override delete(doc: number): boolean {
    if (this.unsealed?.doc === doc) this.unsealed = undefined;
    if (this.present[doc] !== 1) return false;
    this.present[doc] = 0;
    this.lengths.fill(0, doc * this.fields, (doc + 1) * this.fields);
    this.rows--;
    return true;
  }

  override clear(): void {
    this.unsealed = undefined;
    this.present.fill(0);
    this.lengths.fill(0);
    this.rows = 0;
  }

  /** A row as JSON, `[title,aliases,…]`: what MiniSearch's own serialisation writes for it. */
  rowJson(doc: number): string {
    this.seal();
    let json = '[';
    for (let f = 0; f < this.fields; f++) json += `${f === 0 ? '' : ','}${this.lengths[doc * this.fields + f]}`;
    return `${json}]`;
  }

  override *entries(): MapIterator<[number, number[]]> {
    for (const doc of this.keys()) yield [doc, this.get(doc)!];
  }

  override [Symbol.iterator](): MapIterator<[number, number[]]> {
    return this.entries();
  }

  override *keys(): MapIterator<number> {
    for (let doc = 0; doc < this.present.length; doc++) if (this.present[doc] === 1) yield doc;
  }

  override *values(): MapIterator<number[]> {
    for (const [, row] of this.entries()) yield row;
  }

  override forEach(visit: (row: number[], doc: number, map: Map<number, number[]>) => void, thisArg?: unknown): void {
    for (const [doc, row] of this.entries()) visit.call(thisArg, row, doc, this);
  }

  private grow(doc: number): void {
    const rows = Math.max(1024, doc + 1, this.present.length * 2);
    const lengths = new Uint16Array(rows * this.fields);
    lengths.set(this.lengths);
    const present = new Uint8Array(rows);
    present.set(this.present);
    this.lengths = lengths;
    this.present = present;
  }
}
