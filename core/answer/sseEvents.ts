/**
 * Server-sent events as chat-completions APIs stream them: `data: <payload>` lines, events separated by a blank
 * line. Yields each event's data (multi-line data joined with "\n"); comments (`:`) and other fields are ignored.
 * Bytes are decoded as a stream, so a character split across network chunks arrives whole.
 */
export async function* sseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const takeLines = function* (final: boolean) {
    let newline = buffer.search(/\r?\n|\r/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      const breakLength = buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone "\r" at the very end may be the first half of "\r\n": wait for more.
      if (!final && breakLength === 1 && buffer[newline] === '\r' && newline === buffer.length - 1) break;
      buffer = buffer.slice(newline + breakLength);
      yield line;
      newline = buffer.search(/\r?\n|\r/);
    }
    if (final && buffer) {
      yield buffer;
      buffer = '';
    }
  };
  const lineEvent = (line: string): string | undefined => {
    if (line === '') {
      const event = data.length ? data.join('\n') : undefined;
      data = [];
      return event;
    }
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of takeLines(false)) {
      const event = lineEvent(line);
      if (event !== undefined) yield event;
    }
  }
  buffer += decoder.decode();
  for (const line of takeLines(true)) {
    const event = lineEvent(line);
    if (event !== undefined) yield event;
  }
  // A stream may end without the blank line after its last event.
  if (data.length) yield data.join('\n');
}
