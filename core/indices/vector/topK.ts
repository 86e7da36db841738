import { compareLabelHits, type LabelHit } from './vectorTypes.js';

/**
 * Keeps the k best (score, label) pairs seen, for candidates offered in ascending
 * label order: a later candidate with an equal score never displaces an earlier
 * one, which is how faiss flat search breaks ties too.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly labels: Int32Array;
  private count = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.labels = new Int32Array(k);
  }

  get full(): boolean {
    return this.count === this.k;
  }

  /** The score a new candidate has to beat once full. */
  get threshold(): number {
    return this.count === this.k ? this.scores[0] : -Infinity;
  }

  offer(score: number, label: number): void {
    if (this.count < this.k) {
      this.siftUp(this.count++, score, label);
    } else if (score > this.scores[0]) {
      this.siftDown(0, score, label);
    }
  }

  /** Best first. */
  sorted(): LabelHit[] {
    const hits: LabelHit[] = [];
    for (let i = 0; i < this.count; i++) hits.push({ label: this.labels[i], score: this.scores[i] });
    return hits.sort(compareLabelHits);
  }

  // Min-heap with the worst kept candidate at the root.
  private siftUp(i: number, score: number, label: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!isWorse(score, label, this.scores[parent], this.labels[parent])) break;
      this.scores[i] = this.scores[parent];
      this.labels[i] = this.labels[parent];
      i = parent;
    }
    this.scores[i] = score;
    this.labels[i] = label;
  }

  private siftDown(i: number, score: number, label: number): void {
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.count) break;
      const right = child + 1;
      if (right < this.count && isWorse(this.scores[right], this.labels[right], this.scores[child], this.labels[child])) child = right;
      if (!isWorse(this.scores[child], this.labels[child], score, label)) break;
      this.scores[i] = this.scores[child];
      this.labels[i] = this.labels[child];
      i = child;
    }
    this.scores[i] = score;
    this.labels[i] = label;
  }
}

/** Lower score, or the same score and a later label. */
function isWorse(scoreA: number, labelA: number, scoreB: number, labelB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && labelA > labelB);
}
