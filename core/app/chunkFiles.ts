// `cairn chunk`: Markdown files cut into chunks exactly as the index would cut them, without indexing anything.
// Folders are scanned like a vault; a file that cannot be read or chunked is reported and the others go on.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createNoteChunker } from '../chunking/chunkerPool.js';
import type { ChunkedNote } from '../chunking/types.js';
import { defaultDataRoot } from '../config/dataFolder.js';
import type { CairnConfig } from '../config/schema.js';
import { createEmbedder } from '../embedding/embedder.js';
import { readNoteFile } from '../vault/readNoteFile.js';
import { scanVault, type VaultFileEntry } from '../vault/scanVault.js';

/** One file as it was chunked, or why it was skipped; `display` names it relative to the working directory. */
export type ChunkedFile = ({ display: string } & Pick<ChunkedNote, 'chunks' | 'frontmatterError' | 'warning'>) | SkippedFile;

interface SkippedFile {
  display: string;
  skipped: string;
}

interface Target {
  entry: VaultFileEntry;
  /** The file as the user named it, relative to the working directory. */
  display: string;
}

/** Yields each file in turn; a path that does not exist throws before any file is chunked. */
export async function* chunkFiles(paths: string[], config: CairnConfig): AsyncGenerator<ChunkedFile> {
  // The configured model's own token counter and window, so these are exactly the chunks the index makes.
  const embedder = await createEmbedder({
    model: config.embedding.model,
    dtype: config.embedding.dtype,
    batchSize: config.embedding.batch_size,
    maxTokens: config.embedding.max_tokens,
    dataRoot: config.index.data_dir ? path.resolve(config.index.data_dir) : defaultDataRoot(),
  });
  const tokens = embedder.tokens;
  await embedder.close();
  // The indexer's own chunker (a worker thread): a note that breaks the parser is named, and the others go on.
  const chunker = createNoteChunker(config.chunking, tokens);
  try {
    const targets: Target[] = [];
    for (const given of paths) {
      // What a folder's scan skipped is said as it is found, before a later path that does not exist stops the run.
      for (const found of await filesUnder(given, config.vault)) {
        if ('skipped' in found) yield found;
        else targets.push(found);
      }
    }
    for (const target of targets) {
      let note;
      try {
        note = await readNoteFile(target.entry);
      } catch (error) {
        yield { display: target.display, skipped: (error as Error).message };
        continue;
      }
      let chunked;
      try {
        chunked = await chunker.chunk({ path: target.entry.path, text: note.text, mtimeMs: note.mtimeMs });
      } catch (error) {
        yield { display: target.display, skipped: (error as Error).message };
        continue;
      }
      const warning = [note.notice, chunked.warning].filter(Boolean).join('; ');
      yield { display: target.display, chunks: chunked.chunks, frontmatterError: chunked.frontmatterError, ...(warning ? { warning } : {}) };
    }
  } finally {
    await chunker.close();
  }
}

async function filesUnder(given: string, vault: { include: string[]; exclude: string[]; extensions: string[] }): Promise<Array<Target | SkippedFile>> {
  const absolute = path.resolve(given);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new Error(`${given}: no such file or folder`);
  if (!info.isDirectory()) {
    const display = toPosix(path.relative(process.cwd(), absolute));
    return [{ entry: { path: display, absPath: absolute, size: info.size, mtimeMs: info.mtimeMs }, display }];
  }
  const scan = await scanVault(absolute, vault);
  return [
    ...scan.warnings.map((warning) => ({ display: path.join(given, warning.path), skipped: warning.reason })),
    ...scan.files.map((entry) => ({ entry, display: toPosix(path.relative(process.cwd(), entry.absPath)) })),
  ];
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
