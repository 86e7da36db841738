// The real corpora the scale vaults are made from, read once: per corpus (a "family") its notes cut into sections at
// headings, their tags, and the family's vocabulary (for perturbing words).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface SourceNote {
  /** The file name without its extension, made safe to use as a file name and a wikilink target. */
  title: string;
  tags: string[];
  /** Text before the first heading (without front matter), then one entry per heading with its body. */
  intro: string;
  sections: string[];
}

export interface Family {
  name: string;
  notes: SourceNote[];
  vocabulary: string[];
}

const VOCABULARY_CAP = 30_000;
const HEADING = /^#{1,6}\s/;
const FENCE = /^\s*(```|~~~)/;
/** Property lines that name a Logseq page or block: copied, they would give two generated notes one title or block. */
const IDENTITY_PROPERTY = /^\s*(-\s+)?(title|alias|aliases|id)::/i;

/** Every corpus folder under `root` with Markdown notes below its top level (LICENSE.md and the like are skipped). */
export async function readFamilies(root: string): Promise<Family[]> {
  const families: Family[] = [];
  for (const entry of (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(root, entry.name);
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && e.name.endsWith('.md') && e.parentPath !== dir)
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
    if (files.length === 0) continue;
    const notes: SourceNote[] = [];
    const words = new Set<string>();
    for (const file of files) {
      const note = splitNote(path.basename(file, '.md'), await readFile(file, 'utf8'));
      if (note.sections.length === 0 && note.intro.trim() === '') continue;
      notes.push(note);
      if (words.size < VOCABULARY_CAP) for (const w of `${note.intro}\n${note.sections.join('\n')}`.match(/\p{L}{4,12}/gu) ?? []) words.add(w);
    }
    families.push({ name: entry.name, notes, vocabulary: [...words].slice(0, VOCABULARY_CAP) });
  }
  if (families.length === 0) throw new Error(`no corpus with Markdown notes under ${root}`);
  return families;
}

export function safeTitle(name: string): string {
  return name.replace(/[\\/:*?"<>|#^[\]]/g, ' ').replace(/\s+/g, ' ').trim() || 'untitled';
}

function splitNote(name: string, text: string): SourceNote {
  let body = text.replace(/\r\n/g, '\n');
  let tags: string[] = [];
  const front = /^---\n([\s\S]*?)\n---\n/.exec(body);
  if (front) {
    body = body.slice(front[0].length);
    tags = frontmatterTags(front[1]);
  }
  const sections: string[] = [];
  let current: string[] | undefined;
  let inFence = false;
  const introLines: string[] = [];
  for (const line of body.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    if (!inFence && IDENTITY_PROPERTY.test(line)) continue;
    if (!inFence && HEADING.test(line)) {
      if (current) sections.push(current.join('\n'));
      current = [line];
    } else (current ?? introLines).push(line);
  }
  if (current) sections.push(current.join('\n'));
  return { title: safeTitle(name), tags, intro: introLines.join('\n'), sections };
}

function frontmatterTags(yamlText: string): string[] {
  try {
    const data = parseYaml(yamlText) as { tags?: unknown } | null;
    const tags = data?.tags;
    const list = Array.isArray(tags) ? tags : typeof tags === 'string' ? tags.split(/[,\s]+/) : [];
    return list.map(String).map((t) => t.replace(/^#/, '').trim()).filter((t) => /^[\p{L}\p{N}_/-]+$/u.test(t));
  } catch {
    return [];
  }
}
