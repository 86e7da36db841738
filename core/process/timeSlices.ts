// Long passes on the main thread (indexing a batch, vacuuming, writing the keyword index) in turns of a few
// milliseconds: the event loop runs between turns, so searches, the UI's requests and file events are answered
// while they go on.

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

  /**
   * The slices of a pass that begins outside a turn of its own: woken by a read, a write or a worker's reply, or
   * started inside another pass's turn. It waits for its turn in the queue first; begun at once, it ran in the same
   * turn of the event loop as another pass (at 50k, re-chunk holds of 76-110 ms).
   */
  static async inTurn(turnMs = TURN_MS): Promise<TimeSlices> {
    const turns = new TimeSlices(turnMs);
    await turns.next();
    return turns;
  }

  due(): boolean {
    return performance.now() - this.started >= this.turnMs;
  }

  async next(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

// Passes waiting for their next turn, first come first served, one per turn of the event loop. Were each resumed by
// its own setImmediate, all would run in the same turn, one after another: with indexing, vacuuming and vectors
// going on at once, three 20 ms turns make a 60 ms stall.
const waiting: Array<() => void> = [];
let scheduled = false;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(resumeOne);
    }
  });
}

function resumeOne(): void {
  // Scheduled from inside this turn's immediates, the next one runs in the loop's next turn.
  scheduled = waiting.length > 1;
  if (scheduled) setImmediate(resumeOne);
  waiting.shift()!();
}
