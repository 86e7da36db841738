import { seededRandom } from '../core/random/seededRandom.js';

/** A seeded PRNG (mulberry32): the same seed replays the same vaults, edits and fault timings. */
export class Random {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = seededRandom(seed >>> 0 || 0x9e3779b9);
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('pick from an empty list');
    return list[Math.floor(this.next() * list.length)]!;
  }

  shuffle<T>(list: readonly T[]): T[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** A child generator, so one scenario's draws do not shift another's when rounds or scenarios are added. */
  fork(label: string): Random {
    let h = this.seed ^ 0x811c9dc5;
    for (const ch of label) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
    return new Random(h >>> 0);
  }
}
