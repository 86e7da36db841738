// markdown-it plugin: every block element gets data-source-line / data-source-end (1-based, inclusive, counted in
// the whole note file), from the line ranges markdown-it records in each token's `map`. The note view uses them to
// highlight a citation's lines and scroll to them. Code and raw-HTML blocks are wrapped in a <div> that carries the
// range, since their own markup has no place for it.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';

export interface SourceLineEnv {
  /** Lines of the file before the rendered text (the front matter). */
  lineOffset: number;
}

/** The token's lines, 1-based in the file; blank lines at its end (which markdown-it counts in) left out. */
function lineRange(token: Token, env: SourceLineEnv, blank: (line: number) => boolean): [string, string] | null {
  if (!token.map) return null;
  let end = token.map[1];
  while (end - 1 > token.map[0] && blank(end - 1)) end--;
  return [String(token.map[0] + env.lineOffset + 1), String(end + env.lineOffset)];
}

export function sourceLinePlugin(md: MarkdownIt): void {
  md.core.ruler.push('source_lines', (state: StateCore) => {
    const env = state.env as SourceLineEnv;
    const lines = state.src.split('\n');
    const blank = (line: number) => !/\S/.test(lines[line] ?? '');
    for (const token of state.tokens) {
      if (token.nesting === -1) continue;
      const range = lineRange(token, env, blank);
      if (!range) continue;
      token.attrSet('data-source-line', range[0]);
      token.attrSet('data-source-end', range[1]);
    }
  });
  for (const rule of ['fence', 'code_block', 'html_block'] as const) {
    const original = md.renderer.rules[rule]!;
    md.renderer.rules[rule] = (tokens, idx, options, env, self) => {
      const token = tokens[idx];
      const start = token.attrGet('data-source-line');
      const end = token.attrGet('data-source-end');
      // The wrapper carries the range; the inner markup must not repeat it.
      token.attrs = (token.attrs ?? []).filter(([name]) => !name.startsWith('data-source-'));
      const inner = original(tokens, idx, options, env, self);
      return start ? `<div class="block-${rule}" data-source-line="${start}" data-source-end="${end}">${inner}</div>\n` : inner;
    };
  }
}
