// A note as the app shows it: its text, properties, outline, resolved links, tags, links both ways, related notes,
// the Logseq blocks it references, and an "open in Obsidian" link in an Obsidian vault. The renderer only renders it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NoteView } from '../contract/note.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import { extractInlineRefs } from '../parse/links.js';
import { resolveNoteBlockRefs } from './noteBlockRefs.js';
import { outlineInfo } from './noteOutline.js';
import { noteProperties } from './noteProperties.js';
import type { CairnVault } from './vault.js';

export async function noteView(vault: CairnVault, notePath: string): Promise<NoteView> {
  const info = vault.noteInfo(notePath);
  if (!info) throw new Error(`${notePath} is not an indexed note`);
  const source = await vault.readNote(notePath);
  const link = (p: string) => ({ path: p, title: vault.noteRecord(p)?.title ?? path.basename(p).replace(/\.[^.]+$/, '') });
  const obsidian = existsSync(path.join(vault.vaultPath, '.obsidian'));
  const blockRefs = await resolveNoteBlockRefs(vault, notePath, source.text, (uuid) => vault.blockNote(uuid));
  const frontmatter = parseFrontmatter(source.text);
  const outline = outlineInfo(source.text, frontmatter.end);
  return {
    path: notePath,
    title: info.record.title,
    text: source.text,
    bodyStart: frontmatter.end,
    modified: new Date(source.mtimeMs).toISOString(),
    tags: info.record.tags,
    properties: noteProperties(source.text, frontmatter, outline.pageProperties),
    outline,
    links: resolvedLinks(vault, notePath, source.text, frontmatter.end),
    outgoing: info.outgoing.map(link),
    backlinks: info.backlinks.map(link),
    related: info.related.map(link),
    blockRefs,
    ...(obsidian
      ? { obsidianUrl: `obsidian://open?vault=${encodeURIComponent(path.basename(vault.vaultPath))}&file=${encodeURIComponent(notePath.replace(/\.md$/i, ''))}` }
      : {}),
  };
}

/** Every wikilink, embed and Markdown link target of the body → the note it resolves to from this note (null: none). */
function resolvedLinks(vault: CairnVault, notePath: string, text: string, bodyStart: number): Record<string, string | null> {
  const links = new Map<string, string | null>();
  for (const { target } of extractInlineRefs(text, bodyStart, text.length, []).links) {
    if (target && !links.has(target)) links.set(target, vault.resolveLink(target, notePath) ?? null);
  }
  // fromEntries, not assignment: a target named "__proto__" stays a plain key.
  return Object.fromEntries(links);
}
