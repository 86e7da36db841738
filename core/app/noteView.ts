// A note as the app shows it: its text, tags, links both ways, related notes, the Logseq blocks it references, and
// an "open in Obsidian" link in an Obsidian vault.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NoteView } from '../appApi.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import { resolveNoteBlockRefs } from './noteBlockRefs.js';
import type { CairnVault } from './vault.js';

export async function noteView(vault: CairnVault, notePath: string): Promise<NoteView> {
  const info = vault.noteInfo(notePath);
  if (!info) throw new Error(`${notePath} is not an indexed note`);
  const source = await vault.readNote(notePath);
  const link = (p: string) => ({ path: p, title: vault.noteRecord(p)?.title ?? path.basename(p).replace(/\.[^.]+$/, '') });
  const obsidian = existsSync(path.join(vault.vaultPath, '.obsidian'));
  const blockRefs = await resolveNoteBlockRefs(vault, notePath, source.text, (uuid) => vault.blockNote(uuid));
  return {
    path: notePath,
    title: info.record.title,
    text: source.text,
    bodyStart: parseFrontmatter(source.text).end,
    modified: new Date(source.mtimeMs).toISOString(),
    tags: info.record.tags,
    outgoing: info.outgoing.map(link),
    backlinks: info.backlinks.map(link),
    related: info.related.map(link),
    blockRefs,
    ...(obsidian
      ? { obsidianUrl: `obsidian://open?vault=${encodeURIComponent(path.basename(vault.vaultPath))}&file=${encodeURIComponent(notePath.replace(/\.md$/i, ''))}` }
      : {}),
  };
}
