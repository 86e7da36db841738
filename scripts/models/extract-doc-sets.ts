/**
 * The data preparation for the documentation sets of the retrieval model (doc-sets.json): copies each set's files,
 * at its pinned commit, out of a git clone into `<out>/<set name>/`, the folder layout train-retrieval-model.ts reads
 * with --docs-dir. Symbolic links are left out; a set whose clone is missing, or lacks the pinned commit, is reported
 * and the rest go on.
 *
 *   node --import tsx scripts/models/extract-doc-sets.ts --clones DIR --out DIR
 *
 * A clone of github.com/<owner>/<name> is looked for as DIR/<owner>/<name> (git clone), DIR/<owner>+<name> or
 * DIR/<owner>+<name>/repo (a bare copy). Offline build tool, not run in CI.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface DocSet {
  name: string;
  repo: string;
  commit: string;
  /** Git pathspecs of the folders (or files) read; none: the whole tree. */
  paths: string[];
  /** A regular expression the file's path in the repository must match. */
  include: string;
  licence: string;
  copyright: string;
}

export async function readDocSets(file = path.join(HERE, 'doc-sets.json')): Promise<DocSet[]> {
  return (JSON.parse(await readFile(file, 'utf8')) as { sets: DocSet[] }).sets;
}

function gitDirOf(clones: string, repo: string): string | undefined {
  const [owner, name] = repo.split('/');
  const candidates = [path.join(clones, owner!, name!, '.git'), path.join(clones, `${owner}+${name}`, '.git'), path.join(clones, `${owner}+${name}`, 'repo'), path.join(clones, `${owner}+${name}`)];
  return candidates.find((dir) => existsSync(path.join(dir, 'HEAD')));
}

async function git(gitDir: string, args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', ['--git-dir', gitDir, ...args], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

/** Copies one set's files; returns how many. */
export async function extractDocSet(set: DocSet, gitDir: string, out: string): Promise<number> {
  const include = new RegExp(set.include);
  const listing = (await git(gitDir, ['ls-tree', '-r', '-z', set.commit, '--', ...set.paths])).toString('utf8');
  const files = listing
    .split('\0')
    .filter(Boolean)
    .map((entry) => ({ mode: entry.slice(0, entry.indexOf(' ')), file: entry.slice(entry.indexOf('\t') + 1) }))
    .filter(({ mode, file }) => mode !== '120000' && include.test(file));
  const dir = path.join(out, set.name);
  await rm(dir, { recursive: true, force: true });
  for (const { file } of files) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, await git(gitDir, ['show', `${set.commit}:${file}`]));
  }
  return files.length;
}

async function main() {
  const args = process.argv.slice(2);
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    if (i < 0 || !args[i + 1]) throw new Error(`${flag} DIR is required (see the comment at the top of ${path.basename(fileURLToPath(import.meta.url))})`);
    return path.resolve(args[i + 1]!);
  };
  const clones = value('--clones');
  const out = value('--out');
  let missing = 0;
  for (const set of await readDocSets()) {
    const gitDir = gitDirOf(clones, set.repo);
    if (!gitDir) {
      console.error(`${set.name}: no clone of ${set.repo} under ${clones}`);
      missing++;
      continue;
    }
    try {
      console.log(`${set.name}: ${await extractDocSet(set, gitDir, out)} files from ${set.repo} at ${set.commit.slice(0, 10)}`);
    } catch (e) {
      console.error(`${set.name}: ${set.repo} at ${set.commit}: ${(e as Error).message.split('\n')[0]}`);
      missing++;
    }
  }
  if (missing) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
