import { stringify } from 'smol-toml';
import { lineOfKey } from './loadConfig.js';

/**
 * Sets `section.key = value` in config.toml text without touching anything else: the user's comments, order
 * and layout stay. An existing assignment has its value replaced (a trailing comment is kept); a missing one is
 * added at the end of its section, or in a new section at the end of the file.
 */
export function setConfigValue(text: string, dotted: string, value: unknown): string {
  const [section, key] = dotted.split('.', 2);
  if (!section || !key) throw new Error(`expected "section.key", got "${dotted}"`);
  const rendered = renderValue(value);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const existing = lineOfKey(text, dotted);
  if (existing !== undefined) {
    const line = lines[existing - 1];
    const match = /^(\s*"?[A-Za-z0-9_.-]+"?\s*=\s*)(.*)$/.exec(line)!;
    lines[existing - 1] = `${match[1]}${rendered}${trailingComment(match[2])}`;
    return lines.join(eol);
  }
  const header = lineOfKey(text, section);
  if (header === undefined) {
    const body = text.replace(/(\r?\n)*$/, '');
    return `${body}${body ? `${eol}${eol}` : ''}[${section}]${eol}${key} = ${rendered}${eol}`;
  }
  // After the last non-blank line of the section (before the next table header).
  let insertAt = header;
  for (let i = header; i < lines.length && !/^\s*\[/.test(lines[i]); i++) if (lines[i].trim()) insertAt = i + 1;
  lines.splice(insertAt, 0, `${key} = ${rendered}`);
  return lines.join(eol);
}

function renderValue(value: unknown): string {
  // smol-toml renders a value correctly only as part of a table: render `v = value` and keep the right side.
  return stringify({ v: value }).trim().replace(/^v\s*=\s*/, '');
}

/** The `# comment` after a value, if any (outside strings). */
function trailingComment(rest: string): string {
  let quote: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return `  ${rest.slice(i).trimEnd()}`;
  }
  return '';
}
