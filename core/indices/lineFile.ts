/**
 * Index files of one JSON value per line, read from bytes and decoded a line at a time: no string has to hold a
 * whole file (V8 strings stop at about 512 MB, which a very large vault's index would pass), and a long file is
 * read (and written) in turns, giving the event loop a turn between them.
 */
import { TimeSlices } from '../process/timeSlices.js';

/**
 * Calls `each` with every non-empty line of UTF-8 `bytes`, its 1-based number and the reading's turns (for a line
 * that is long work of its own); `each` may throw, or reject, to stop.
 */
export async function eachLine(bytes: Uint8Array, each: (line: string, lineNumber: number, turns: TimeSlices) => void | Promise<void>): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const turns = new TimeSlices();
  let lineNumber = 0;
  for (let start = 0; start < buffer.length; ) {
    const newline = buffer.indexOf(10, start);
    const end = newline === -1 ? buffer.length : newline;
    lineNumber++;
    if (end > start) await each(buffer.toString('utf8', start, end), lineNumber, turns);
    start = end + 1;
    if (turns.due()) await turns.next();
  }
}

/** `items` as lines of JSON arrays of up to `perLine` items, in turns. */
export async function* jsonArrayLines(items: Iterable<unknown>, perLine: number, turns: TimeSlices): AsyncGenerator<string> {
  let line: unknown[] = [];
  for (const item of items) {
    line.push(item);
    if (line.length === perLine) {
      yield `${JSON.stringify(line)}\n`;
      line = [];
    }
    if (turns.due()) await turns.next();
  }
  if (line.length) yield `${JSON.stringify(line)}\n`;
}
