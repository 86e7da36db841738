// A throwaway Cairn setup for one e2e run: a copy of sample-vault (plus generated field notes, so that a rebuild
// lasts long enough to watch), a data folder and a config.toml, all in a temp dir.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** How many notes sample-vault holds (the status line counts them with any added notes). */
export const SAMPLE_NOTES = 15;

export interface Workspace {
  root: string;
  vault: string;
  dataDir: string;
  configFile: string;
  remove(): Promise<void>;
}

const WORDS = ['river', 'granite', 'lichen', 'heron', 'moss', 'ridge', 'fog', 'tide', 'spruce', 'meadow', 'basalt', 'otter', 'fern', 'glacier', 'willow', 'dune', 'kestrel', 'marsh', 'pebble', 'cedar'];

/** Deterministic filler prose: field notes that share no words with the sample vault's topics. */
function fieldNote(n: number): string {
  let seed = n * 7919 + 17;
  const word = () => WORDS[(seed = (seed * 1103515245 + 12345) % 2147483648) % WORDS.length];
  const sentence = () => `${Array.from({ length: 12 }, word).join(' ')}.`;
  const section = (title: string) => `## ${title}\n\n${Array.from({ length: 6 }, sentence).join(' ')}\n\n${Array.from({ length: 6 }, sentence).join(' ')}\n`;
  return `# Field note ${n}\n\n${section('Morning')}\n${section('Afternoon')}\n${section('Evening')}`;
}

/**
 * `noVaultInConfig`: the config names no vault (a first run: the app must ask for one). `adapt`: learn the vault's
 * vocabulary in the background as the shipped config does; off unless asked, so that no re-embedding with an adapted
 * table starts in the middle of a test about something else.
 */
export async function createWorkspace(options: { fieldNotes?: number; extraNotes?: Record<string, string | Uint8Array>; noVaultInConfig?: boolean; adapt?: boolean } = {}): Promise<Workspace> {
  const root = await mkdtemp(path.join(tmpdir(), 'cairn-e2e-'));
  const vault = path.join(root, 'vault');
  const dataDir = path.join(root, 'data');
  const configFile = path.join(root, 'config.toml');
  await cp(path.join(REPO, 'sample-vault'), vault, { recursive: true });
  await mkdir(path.join(vault, 'Field notes'), { recursive: true });
  for (let n = 1; n <= (options.fieldNotes ?? 0); n++) await writeFile(path.join(vault, 'Field notes', `Field note ${n}.md`), fieldNote(n));
  for (const [name, text] of Object.entries(options.extraNotes ?? {})) {
    await mkdir(path.dirname(path.join(vault, name)), { recursive: true });
    await writeFile(path.join(vault, name), text);
  }
  // The repository's config.toml (every option, with comments), pointed at the copy.
  const config = (await readFile(path.join(REPO, 'config.toml'), 'utf8'))
    .replace(/^path = .*$/m, options.noVaultInConfig ? 'path = ""' : 'path = "vault"')
    .replace(/^adapt = true$/m, `adapt = ${options.adapt === true}`);
  await writeFile(configFile, config);
  return { root, vault, dataDir, configFile, remove: () => rm(root, { recursive: true, force: true }) };
}
