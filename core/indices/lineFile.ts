/**
 * Index files of one JSON value per line, read from bytes and decoded a line at a time: no string has to hold a
 * whole file (V8 strings stop at about 512 MB, which a very large vault's index would pass), and a long file is
 * read in slices, giving the event loop a turn between them.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Work done between two turns of the event loop. */
const SLICE_MS = 15;

/** Calls `each` with every non-empty line of UTF-8 `bytes` and its 1-based number; `each` may throw to stop. */
export async function eachLine(bytes: Uint8Array, each: (line: string, lineNumber: number) => void): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let sliceStart = performance.now();
  let lineNumber = 0;
  for (let start = 0; start < buffer.length; ) {
    const newline = buffer.indexOf(10, start);
    const end = newline === -1 ? buffer.length : newline;
    lineNumber++;
    if (end > start) each(buffer.toString('utf8', start, end), lineNumber);
    start = end + 1;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
  }
}
