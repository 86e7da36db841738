/** The k best of a stream, in a binary heap whose root is the worst kept. */
export class BestOf<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    /** Negative when a ranks before b. */
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** The worst item kept once `k` are kept, which an offer must beat; undefined while there is room. */
  get bar(): T | undefined {
    return this.heap.length < this.k ? undefined : this.heap[0];
  }

  offer(item: T): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return;
      swap(heap, i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.compare(heap[left]!, heap[worst]!) > 0) worst = left;
      if (right < heap.length && this.compare(heap[right]!, heap[worst]!) > 0) worst = right;
      if (worst === i) return;
      swap(heap, i, worst);
      i = worst;
    }
  }
}

/** Not a destructuring swap: that made an array per step, some 0.2 MB of garbage a keyword search. */
function swap<T>(heap: T[], a: number, b: number): void {
  const item = heap[a]!;
  heap[a] = heap[b]!;
  heap[b] = item;
}
