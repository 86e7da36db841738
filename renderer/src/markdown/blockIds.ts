// markdown-it plugin: Obsidian block ids ("… text ^my-id" at the end of a paragraph or list item) are not shown;
// the block gets data-block-id instead, so that [[Note#^my-id]] can scroll to it.
import type MarkdownIt from 'markdown-it';
import type { StateCore } from 'markdown-it';

const BLOCK_ID = /\s\^([A-Za-z0-9-]+)\s*$/;

export function blockIdPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'block_ids', (state: StateCore) => {
    const tokens = state.tokens;
    for (let i = 1; i < tokens.length; i++) {
      const inline = tokens[i];
      const last = inline.type === 'inline' ? inline.children?.at(-1) : undefined;
      const match = last?.type === 'text' ? BLOCK_ID.exec(last.content) : null;
      if (!last || !match) continue;
      last.content = last.content.slice(0, match.index);
      inline.content = inline.content.replace(BLOCK_ID, '');
      // In tight lists the paragraph is not rendered: the id goes to the list item around it.
      let owner = i - 1;
      while (owner > 0 && tokens[owner].hidden) owner--;
      tokens[owner].attrSet('data-block-id', match[1]);
    }
  });
}
