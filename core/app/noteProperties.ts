// The note's properties for the table above its body: its front matter (read by core/parse/frontmatter.ts), then a
// Logseq page's `key:: value` properties, values as display strings; front matter that cannot be read comes back raw.
import type { NoteProperties } from '../contract/note.js';
import type { Frontmatter } from '../parse/frontmatter.js';

/** `frontmatter`: parseFrontmatter(text); `pageProperties`: the outline's (noteOutline.ts). Null when there are none. */
export function noteProperties(text: string, frontmatter: Frontmatter, pageProperties: Array<[string, string]>): NoteProperties | null {
  const front = frontProperties(text, frontmatter);
  // Both kinds in one note (front matter, then `key:: value` lines): one table.
  if (front?.ok) return { ok: true, entries: [...front.entries, ...pageProperties] };
  return front ?? (pageProperties.length ? { ok: true, entries: pageProperties } : null);
}

function frontProperties(text: string, frontmatter: Frontmatter): NoteProperties | null {
  if (frontmatter.end === 0) return null;
  if (frontmatter.error) return { ok: false, raw: yamlSource(text.slice(0, frontmatter.end)) };
  return { ok: true, entries: Object.entries(frontmatter.data).map(([key, value]) => [key, display(value)]) };
}

/** The YAML between the front matter's fences. */
function yamlSource(head: string): string {
  return head.replace(/^\uFEFF?---[ \t]*(?:\r\n|\n|\r)/, '').replace(/(?:\r\n|\n|\r)?(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\r)?$/, '');
}

function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(display).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
