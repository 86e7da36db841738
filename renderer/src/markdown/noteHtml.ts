// Markdown → HTML for the note view (not yet sanitised: renderNote.ts does that): markdown-it with wikilinks, Logseq
// outline syntax and source-line attributes. No DOM needed, so it can be tried outside a browser.
import MarkdownIt from 'markdown-it';
import type { BlockRefView, NoteOutlineView } from '../../../core/contract/appApi.ts';
import { blockIdPlugin } from './blockIds.ts';
import { logseqPlugin, type LogseqEnv } from './logseq.ts';
import { sourceLinePlugin } from './sourceLines.ts';
import { taskListPlugin } from './taskLists.ts';
import { wikilinkPlugin } from './wikilinks.ts';

// html: true renders the HTML notes contain as Obsidian would; the sanitiser makes it inert.
const create = () => new MarkdownIt({ html: true, linkify: true, typographer: false }).use(wikilinkPlugin).use(logseqPlugin).use(blockIdPlugin).use(taskListPlugin).use(sourceLinePlugin);
const markdown = create();
// Outlines have no indented code: a block nested deeper than Markdown expects stays a block.
const outlineMarkdown = create().disable('code');

export interface RenderOptions {
  /** The note's outline, from the core (NoteView.outline). */
  outline?: NoteOutlineView;
  blockRefs?: Record<string, BlockRefView>;
}

/** `body` (the note text after its front matter) as HTML, its lines numbered from `lineOffset`. */
export function noteBodyHtml(body: string, lineOffset: number, options: RenderOptions = {}): string {
  const env: LogseqEnv = { lineOffset, outline: options.outline, propertyLines: new Set(options.outline?.propertyLines), blockRefs: options.blockRefs };
  return (options.outline?.isOutline ? outlineMarkdown : markdown).render(dedented(body, lineOffset, options.outline), env);
}

/** The body with indented top-level blocks moved to the margin, line for line (line numbers stay those of the file). */
function dedented(body: string, lineOffset: number, outline: NoteOutlineView | undefined): string {
  if (!outline?.dedent.length) return body;
  const lines = body.split('\n');
  for (const { from, to, columns } of outline.dedent) {
    for (let line = Math.max(from - lineOffset - 1, 0); line <= to - lineOffset - 1 && line < lines.length; line++) lines[line] = dedentLine(lines[line], columns);
  }
  return lines.join('\n');
}

/** `line` without its first `columns` columns of indentation (tabs count to the next multiple of 4). */
function dedentLine(line: string, columns: number): string {
  let column = 0;
  let i = 0;
  for (; i < line.length && column < columns; i++) {
    const c = line[i];
    if (c === ' ') column++;
    else if (c === '\t') column += 4 - (column % 4);
    else break;
  }
  // A tab reaching past the cut leaves its remaining columns as spaces.
  return ' '.repeat(Math.max(0, column - columns)) + line.slice(i);
}
