// Checks the chunker's invariants on every note of real vaults, under several configurations.
// Usage: npm run check:corpora -- <dir> [<dir>...]   (each dir: a vault, or a folder of vaults)
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { chunkInvariantViolations, outlineInvariantViolations } from '../core/chunking/chunkInvariants.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { defaultConfig, type ChunkingConfig } from '../core/config/schema.js';
import { readNoteFile, type NoteSource } from '../core/vault/readNoteFile.js';
import { scanVault } from '../core/vault/scanVault.js';

const CONFIGS: Array<{ name: string; config: ChunkingConfig; window: number }> = [
  { name: 'defaults', config: defaultConfig().chunking, window: 510 },
  { name: 'small chunks, MiniLM window', config: { ...defaultConfig().chunking, min_chunk_chars: 50, max_chunk_chars: 400, overlap_chars: 60 }, window: 254 },
  { name: 'tiny token window', config: { ...defaultConfig().chunking, max_chunk_chars: 3000, overlap_chars: 100 }, window: 48 },
  { name: 'strategy none', config: { ...defaultConfig().chunking, strategy: 'none' }, window: 510 },
];

async function vaultsIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const hasNotes = entries.some((e) => e.isFile() && /\.(md|markdown)$/i.test(e.name));
  const subdirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => path.join(dir, e.name));
  // A folder of vaults (like shared/corpora) is checked vault by vault, for a per-vault report.
  return hasNotes || subdirs.length === 0 ? [dir] : subdirs;
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: npm run check:corpora -- <dir> [<dir>...]');
  process.exit(2);
}
let failures = 0;
for (const dir of dirs) {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    console.error(`${dir}: not a folder`);
    process.exit(2);
  }
  for (const vault of await vaultsIn(dir)) {
    const { files, warnings } = await scanVault(vault, defaultConfig().vault);
    const notes: NoteSource[] = [];
    for (const file of files) notes.push(await readNoteFile(file));
    console.log(`${vault}: ${notes.length} notes${warnings.length ? `, ${warnings.length} skipped` : ''}`);
    for (const { name, config, window } of CONFIGS) {
      const tokens = new BasicTokenCounter(window);
      const chunker = await createChunker(config, tokens);
      let chunkCount = 0;
      let headingBlocks = 0;
      let bad = 0;
      const started = performance.now();
      for (const note of notes) {
        const input = { path: note.path, text: note.text, mtimeMs: note.mtimeMs };
        const { chunks } = chunker.chunk(input);
        chunkCount += chunks.length;
        // Includes: no `key:: value` property line in any chunk's indexed content.
        const problems = chunkInvariantViolations(note.text, chunks, config, tokens);
        if (config.strategy === 'header_based') {
          const outline = outlineInvariantViolations(note.text, chunks);
          headingBlocks += outline.headingBlocks;
          problems.push(...outline.problems);
        }
        const again = chunker.chunk(input).chunks;
        if (JSON.stringify(again) !== JSON.stringify(chunks)) problems.push('chunking the same text twice gave different chunks');
        if (problems.length) {
          bad++;
          if (bad <= 5) console.log(`  FAIL ${note.path} [${name}]:\n    ${problems.slice(0, 5).join('\n    ')}`);
        }
      }
      failures += bad;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const outlineNote = headingBlocks ? `, ${headingBlocks} heading blocks in header paths` : '';
      console.log(`  ${bad ? 'FAIL' : 'ok  '} ${name}: ${chunkCount} chunks${outlineNote}, ${bad} notes with violations (${seconds} s)`);
    }
  }
}
console.log(failures ? `${failures} note checks failed` : 'all invariants hold');
process.exit(failures ? 1 : 0);
