// The desktop app's config.toml lives in the user-data folder. On first run it is created from the documented
// template (every option with its default and comments), so that Settings can save into it.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPLATE = fileURLToPath(new URL('../../config.toml', import.meta.url));

export async function ensureDesktopConfig(userData: string): Promise<string> {
  const file = path.join(userData, 'config.toml');
  if (existsSync(file)) return file;
  if (existsSync(TEMPLATE)) {
    // The template names the repository's sample vault; the app's config starts with no vault of its own.
    const text = (await readFile(TEMPLATE, 'utf8')).replace(/^path = .*$/m, 'path = ""');
    await writeFile(file, text);
  } else {
    await writeFile(file, '# Cairn configuration: omitted options take their defaults (see the README).\n');
  }
  return file;
}
