// Markdown → sanitised DOM for the note view: noteHtml.ts's HTML through DOMPurify.
import { noteBodyHtml, type RenderOptions } from './noteHtml.ts';
import { sanitizeToFragment } from './sanitize.ts';

/** Renders `body` (the note text after its front matter), numbering lines from `lineOffset`. */
export function renderNoteBody(body: string, lineOffset: number, options: RenderOptions = {}): DocumentFragment {
  return sanitizeToFragment(noteBodyHtml(body, lineOffset, options));
}

/** Lines of `text` before `offset` (the front matter's lines). */
export function linesBefore(text: string, offset: number): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}
