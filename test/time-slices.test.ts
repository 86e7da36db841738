import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimeSlices, TURN_MS } from '../core/process/timeSlices.js';

/** Busy work on the main thread, as indexing is. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('long passes run in turns', () => {
  it('a pass of many small items lets the event loop run between turns, about once a turn', async () => {
    const turns = new TimeSlices();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    let yields = 0;
    for (let item = 0; item < 60; item++) {
      spin(2);
      if (turns.due()) {
        yields++;
        await turns.next();
      }
    }
    clearInterval(ticker);
    // ~120 ms of work in turns of TURN_MS: it yielded several times, and the timer ran at each yield. Counted by
    // yields, not by the pass's wall time, which a busy machine stretches without adding turns.
    assert.ok(yields >= Math.floor(120 / (TURN_MS + 2)) - 1, `${yields} yields`);
    assert.ok(ticks >= yields - 1, `${ticks} timer ticks for ${yields} yields`);
  });

  it('passes going on at once take turns of the event loop: a timer waits about one turn, not one per pass', async () => {
    const pass = async () => {
      const turns = new TimeSlices();
      await turns.next(); // each starts in a turn of its own, as passes started by events do
      for (let item = 0; item < 80; item++) {
        spin(1);
        if (turns.due()) await turns.next();
      }
    };
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 1);
    await Promise.all([pass(), pass(), pass()]);
    clearInterval(ticker);
    // Three passes resumed in the same turn of the loop would hold it about 3 × TURN_MS.
    assert.ok(longestGap < 2 * TURN_MS, `the timer waited ${longestGap.toFixed(0)} ms`);
  });

  it('a pass shorter than a turn does not yield at all', async () => {
    const turns = new TimeSlices();
    let yielded = false;
    setImmediate(() => (yielded = true));
    for (let item = 0; item < 5; item++) if (turns.due()) await turns.next();
    assert.equal(yielded, false);
  });
});
