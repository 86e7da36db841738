// What Cairn reads of a Logseq graph's own settings (logseq/config.edn): how its journal files are named.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_JOURNAL_FILE_FORMAT } from '../parse/pageNames.js';

/** The one key needed: a string value, so a pattern suffices where a whole EDN reader would not earn its place. */
const FILE_NAME_FORMAT = /^[^;\n]*:journal\/file-name-format\s+"([^"\\]*)"/m;
/** Formats Cairn can read: the day tokens journalDateFromPath knows, and literal separators. */
const READABLE_FORMAT = /^(?:yyyy|MM|M|dd|d|[^A-Za-z"])+$/;

/**
 * The graph's `:journal/file-name-format` (default `yyyy_MM_dd`), and why it was not used when it could not be (a
 * format with tokens Cairn does not read, such as month names): journal dates then follow the default.
 */
export async function journalFileFormat(vaultPath: string): Promise<{ format: string; problem?: string }> {
  const file = path.join(vaultPath, 'logseq', 'config.edn');
  const text = await readFile(file, 'utf8').catch(() => '');
  const format = FILE_NAME_FORMAT.exec(text)?.[1];
  if (format === undefined) return { format: DEFAULT_JOURNAL_FILE_FORMAT };
  if (!READABLE_FORMAT.test(format) || !['yyyy', 'M', 'd'].every((t) => format.includes(t))) {
    return { format: DEFAULT_JOURNAL_FILE_FORMAT, problem: `logseq/config.edn: :journal/file-name-format "${format}" is not one Cairn reads (yyyy, MM, dd and separators); journal days follow "${DEFAULT_JOURNAL_FILE_FORMAT}"` };
  }
  return { format };
}
