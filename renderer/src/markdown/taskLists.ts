// markdown-it plugin: task list items ("- [ ] to do", "- [x] done", as GitHub, Obsidian and Logseq's Markdown write
// them) show a read-only checkbox instead of the brackets. The list item gets class "task-list-item" (and "done" when
// checked), its list "contains-task-list". The note view never changes the file: the checkbox is disabled.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';

const TASK = /^\[([ xX])\][ \t\u00a0]/;

export function taskListPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'task_lists', (state: StateCore) => {
    const tokens = state.tokens;
    for (let i = 2; i < tokens.length; i++) {
      const inline = tokens[i];
      // The first inline of a list item: list_item_open, paragraph_open, inline.
      if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
      const first = inline.children?.[0];
      const match = first?.type === 'text' ? TASK.exec(first.content) : null;
      if (!first || !match) continue;
      const checked = match[1] !== ' ';
      first.content = first.content.slice(match[0].length);
      const box = new state.Token('html_inline', '', 0);
      box.content = `<input type="checkbox" class="task-checkbox" disabled${checked ? ' checked' : ''} aria-label="${checked ? 'done' : 'to do'}"> `;
      inline.children!.unshift(box);
      const item = tokens[i - 2];
      item.attrJoin('class', checked ? 'task-list-item done' : 'task-list-item');
      const list = openingList(tokens, i - 2);
      if (list && !list.attrGet('class')?.includes('contains-task-list')) list.attrJoin('class', 'contains-task-list');
    }
  });
}

/** The bullet or ordered list that opens around the list item at `item`. */
function openingList(tokens: Token[], item: number): Token | undefined {
  let depth = 0;
  for (let i = item - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') depth++;
    else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
      if (depth === 0) return t;
      depth--;
    }
  }
  return undefined;
}
