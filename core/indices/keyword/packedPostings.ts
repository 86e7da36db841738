// The postings of one term in one field (chunk short id → term frequency), with the Map interface MiniSearch and the
// scorer use, packed into one Uint32Array of (id, frequency) pairs, ids ascending: about 10 bytes a posting instead
// of a Map entry's 35-40, which was most of the heap of a freshly built index (about 190 MB at 50,000 chunks).

const EMPTY = new Uint32Array(0);

/** The (chunk id, frequency) pairs of any postings, ids ascending (as packed ones already are, and a Map usually is). */
export function pairsInIdOrder(postings: Map<number, number>): Array<[number, number]> {
  const pairs = [...postings];
  if (!pairs.every(([doc], i) => i === 0 || doc > pairs[i - 1]![0])) pairs.sort((a, b) => a[0] - b[0]);
  return pairs;
}

/** Every posting of a term in a field, for a reader that changes nothing meanwhile: packed ones in a plain loop. */
export function forEachPosting(postings: Map<number, number>, visit: (frequency: number, doc: number) => void): void {
  if (postings instanceof PackedPostings) postings.forEachUnchanging(visit);
  else postings.forEach(visit);
}

/** Where an iteration is: the array it reads, the next pair index, the pair reached last. */
interface Cursor {
  pairs: Uint32Array;
  next: number;
  doc: number;
  frequency: number;
}

/**
 * MiniSearch gives a new chunk a higher short id than any before it, so adding a chunk's posting is an append and a
 * lookup a binary search. A deleted posting is a tombstone (frequency 0) until the array next grows, so deleting
 * while iterating is as safe as with a Map; an iteration that outlives a growth goes on
 * after the id it gave last. Subclasses may fill the pairs on first use (`materialize`).
 *
 * It has Map's interface (what MiniSearch and the scorer call) but is not a Map: a subclass of Map is given a hash
 * table of its own that the packed pairs never use (about 145 bytes each; 12.9 MB at the 50k scale vault's 88,934
 * postings lists).
 */
export class PackedPostings implements Map<number, number> {
  private pairs = EMPTY;
  /** Pairs in use, tombstones included. */
  private used = 0;
  private live = 0;

  get [Symbol.toStringTag](): string {
    return 'PackedPostings';
  }

  /** The same postings packed (their ids sorted). */
  static from(postings: Map<number, number>): PackedPostings {
    const packed = new PackedPostings();
    const entries = pairsInIdOrder(postings);
    packed.reserve(entries.length + (entries.length >> 1));
    for (const [doc, frequency] of entries) packed.append(doc, frequency);
    return packed;
  }

  /** Called first by every method: a subclass holding its postings elsewhere (encoded) appends them here. */
  protected materialize(): void {}

  /** Room for `pairs` pairs in all, so that a loader appending a known count copies nothing as it goes. */
  protected reserveFor(pairs: number): void {
    if (this.pairs.length < pairs * 2) this.reserve(pairs);
  }

  /** Adds a pair after the last one: `doc` must be above every id held (a loader decoding ascending ids). */
  protected append(doc: number, frequency: number): void {
    if (this.used * 2 === this.pairs.length) this.reserve(Math.max(4, this.live + (this.live >> 1)));
    this.pairs[this.used * 2] = doc;
    this.pairs[this.used * 2 + 1] = frequency;
    this.used++;
    this.live++;
  }

  get size(): number {
    this.materialize();
    return this.live;
  }

  get(doc: number): number | undefined {
    this.materialize();
    // Adding a chunk asks first about an id above every one held, or the last one again.
    const lastDoc = this.used === 0 ? -1 : this.pairs[(this.used - 1) * 2]!;
    if (doc > lastDoc) return undefined;
    const at = doc === lastDoc ? this.used - 1 : this.indexOf(doc);
    const frequency = at < 0 ? 0 : this.pairs[at * 2 + 1]!;
    return frequency === 0 ? undefined : frequency;
  }

  has(doc: number): boolean {
    return this.get(doc) !== undefined;
  }

  set(doc: number, frequency: number): this {
    this.materialize();
    if (frequency <= 0 || !Number.isInteger(frequency)) throw new RangeError(`a term frequency is a positive integer, not ${frequency}`);
    const lastDoc = this.used === 0 ? -1 : this.pairs[(this.used - 1) * 2]!;
    if (doc > lastDoc) {
      this.append(doc, frequency);
      return this;
    }
    // The last chunk again (a term met twice in it) is the usual case.
    const at = doc === lastDoc ? this.used - 1 : this.indexOf(doc);
    if (at >= 0) {
      if (this.pairs[at * 2 + 1] === 0) this.live++;
      this.pairs[at * 2 + 1] = frequency;
      return this;
    }
    // An id below the last that is not held (not something MiniSearch does): inserted in its place.
    if (this.used * 2 === this.pairs.length) this.reserve(this.used + (this.used >> 1) + 1);
    const place = -this.indexOf(doc) - 1;
    this.pairs.copyWithin(place * 2 + 2, place * 2, this.used * 2);
    this.pairs[place * 2] = doc;
    this.pairs[place * 2 + 1] = frequency;
    this.used++;
    this.live++;
    return this;
  }

  delete(doc: number): boolean {
    this.materialize();
    const at = this.indexOf(doc);
    if (at < 0 || this.pairs[at * 2 + 1] === 0) return false;
    this.pairs[at * 2 + 1] = 0;
    this.live--;
    return true;
  }

  /** Drops the postings of chunks not marked 1 in `live` (indexed by chunk id); says whether there were any. */
  dropDead(live: Uint8Array): boolean {
    this.materialize();
    const pairs = this.pairs;
    let dropped = 0;
    for (let i = 0; i < this.used; i++) {
      if (pairs[i * 2 + 1] !== 0 && live[pairs[i * 2]!] !== 1) {
        // A tombstone first, as `delete` leaves: an iteration under way skips it.
        pairs[i * 2 + 1] = 0;
        dropped++;
      }
    }
    if (dropped === 0) return false;
    this.live -= dropped;
    // Tombstones go when the array next grows (most lists take new chunks soon after a large change), or now when
    // they outnumber the live pairs, in a new array: an iteration under way goes on after the id it gave last.
    if (this.used - this.live > this.live) this.reserve(this.live + (this.live >> 1));
    return true;
  }

  clear(): void {
    this.materialize();
    this.pairs = EMPTY;
    this.used = this.live = 0;
  }

  // The scorer's loop: no iterator or pair allocated per posting.
  forEach(callback: (frequency: number, doc: number, map: Map<number, number>) => void, thisArg?: unknown): void {
    const at = this.cursor();
    while (this.step(at)) callback.call(thisArg, at.frequency, at.doc, this);
  }

  /**
   * Every live pair, in id order, for a reader that changes nothing while it runs (the scorer): a plain loop over the
   * array, without `forEach`'s cursor, which keeps its place through changes, or a `call` per pair.
   */
  forEachUnchanging(visit: (frequency: number, doc: number) => void): void {
    this.materialize();
    const pairs = this.pairs;
    const end = this.used * 2;
    for (let i = 0; i < end; i += 2) {
      const frequency = pairs[i + 1]!;
      if (frequency !== 0) visit(frequency, pairs[i]!);
    }
  }

  entries(): MapIterator<[number, number]> {
    return this.walk() as MapIterator<[number, number]>;
  }

  [Symbol.iterator](): MapIterator<[number, number]> {
    return this.entries();
  }

  keys(): MapIterator<number> {
    return this.mapped(([doc]) => doc);
  }

  values(): MapIterator<number> {
    return this.mapped(([, frequency]) => frequency);
  }

  private *mapped<T>(pick: (pair: [number, number]) => T): Generator<T, undefined> {
    for (const pair of this.walk()) yield pick(pair);
    return undefined;
  }

  /** The live pairs in id order, as they are when each is reached (see the class comment). */
  private *walk(): Generator<[number, number], undefined> {
    const at = this.cursor();
    while (this.step(at)) yield [at.doc, at.frequency];
    return undefined;
  }

  private cursor(): Cursor {
    this.materialize();
    return { pairs: this.pairs, next: 0, doc: -1, frequency: 0 };
  }

  /** Moves to the next live pair; false at the end. */
  private step(at: Cursor): boolean {
    for (;;) {
      if (at.pairs !== this.pairs) {
        // The array grew (and dropped its tombstones) meanwhile: go on after the last id reached.
        at.pairs = this.pairs;
        at.next = this.indexAfter(at.doc);
      }
      if (at.next >= this.used) return false;
      at.doc = at.pairs[at.next * 2]!;
      at.frequency = at.pairs[at.next * 2 + 1]!;
      at.next++;
      if (at.frequency !== 0) return true;
    }
  }

  /** The index of the first pair whose id is above `doc`. */
  private indexAfter(doc: number): number {
    const at = this.indexOf(doc + 1);
    return at < 0 ? -at - 1 : at;
  }

  /** The pair index of `doc`, or -(where it would go) - 1. */
  private indexOf(doc: number): number {
    let low = 0;
    let high = this.used - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.pairs[mid * 2]!;
      if (at < doc) low = mid + 1;
      else if (at > doc) high = mid - 1;
      else return mid;
    }
    return -low - 1;
  }

  /** A new array with room for `pairs` pairs, holding the live ones (tombstones dropped). */
  private reserve(pairs: number): void {
    const grown = new Uint32Array(Math.max(pairs, this.live + 1) * 2);
    let n = 0;
    for (let i = 0; i < this.used; i++) {
      if (this.pairs[i * 2 + 1] === 0) continue;
      grown[n * 2] = this.pairs[i * 2]!;
      grown[n * 2 + 1] = this.pairs[i * 2 + 1]!;
      n++;
    }
    this.pairs = grown;
    this.used = n;
  }
}
