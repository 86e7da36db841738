// Long passes on the main thread (indexing a batch, writing the keyword index) in turns of a few milliseconds: the
// event loop runs between turns, so searches, the UI's requests and file events are answered while they go on.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** How long one turn may run: well under the 100 ms at which a person notices a stall. */
export const TURN_MS = 20;

/**
 * Times the current turn of a long pass: `due()` says when it has run long enough, `next()` yields and starts
 * another. Between items: `if (turns.due()) await turns.next();` (an await on every item would cost a microtask each).
 */
export class TimeSlices {
  private started = performance.now();

  /** `turnMs`: shorter turns only where a test needs a pass to span many of them. */
  constructor(private readonly turnMs = TURN_MS) {}

  due(): boolean {
    return performance.now() - this.started >= this.turnMs;
  }

  async next(): Promise<void> {
    await yieldToEventLoop();
    this.started = performance.now();
  }
}
