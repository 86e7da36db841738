// Markdown → sanitised DOM for the note view: markdown-it with wikilinks and source-line attributes, then DOMPurify.
import MarkdownIt from 'markdown-it';
import { blockIdPlugin } from './blockIds.ts';
import { sanitizeToFragment } from './sanitize.ts';
import { sourceLinePlugin, type SourceLineEnv } from './sourceLines.ts';
import { wikilinkPlugin } from './wikilinks.ts';

// html: true renders the HTML notes contain as Obsidian would; the sanitiser makes it inert.
const markdown = new MarkdownIt({ html: true, linkify: true, typographer: false }).use(wikilinkPlugin).use(blockIdPlugin).use(sourceLinePlugin);

/** Renders `body` (the note text after its front matter), numbering lines from `lineOffset`. */
export function renderNoteBody(body: string, lineOffset: number): DocumentFragment {
  const env: SourceLineEnv = { lineOffset };
  return sanitizeToFragment(markdown.render(body, env));
}

/** Lines of `text` before `offset` (the front matter's lines). */
export function linesBefore(text: string, offset: number): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}
