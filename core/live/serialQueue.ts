/** Runs jobs one at a time in the order given: the single writer of the index. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(job: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(job, job);
    this.tail = result.catch(() => {}).finally(() => this.pending--);
    return result;
  }

  /** Resolves once every job queued so far (and any they queue) has finished. */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.tail;
  }
}
