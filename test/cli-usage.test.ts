// The CLI's first impressions, through the real ./bin/cairn: --version, usage errors as one line and a hint (not
// the whole help) with exit code 2, an empty query refused, and `cairn serve` on a port in use.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

const CAIRN = new URL('../bin/cairn', import.meta.url).pathname;
const REPO = path.dirname(path.dirname(CAIRN));
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let cwd: string;

/** Runs ./bin/cairn in an empty folder (no config.toml) with its own data folder. */
function cairn(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN, ...args], { cwd, env: { ...process.env, XDG_DATA_HOME: path.join(cwd, 'data'), NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cairn ${args.join(' ')} did not exit within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('cairn on the command line', { timeout: 180_000 }, () => {
  before(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'cairn-cli-'));
  });
  after(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  test('--version and -V print the version', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await cairn([flag]);
      assert.equal(run.code, 0);
      assert.equal(run.stdout, `${VERSION}\n`);
      assert.equal(run.stderr, '');
    }
  });

  test('an option error is one line and a hint, not the whole help, and exits 2', async () => {
    const cases: Array<[string[], string, string]> = [
      [['search', '--k', 'x', 'ranking'], 'cairn: error: --k expects a whole number of at least 1, got "x"', 'search'],
      [['search', '--mode', 'fast', 'ranking'], 'cairn: error: --mode expects one of hybrid, keyword, vector, got "fast"', 'search'],
      [['search', '--zzz', 'ranking'], "cairn: error: unknown option '--zzz'", 'search'],
      [['search'], "cairn: error: missing required argument 'query'", 'search'],
      [['ask', '--k', '0', 'why'], 'cairn: error: --k expects a whole number of at least 1, got "0"', 'ask'],
      [['serve', '--port', '70000'], 'cairn: error: --port expects 0 to 65535, got "70000"', 'serve'],
    ];
    for (const [args, line, command] of cases) {
      const run = await cairn(args);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `${line}\n(see "cairn ${command} --help")\n`, args.join(' '));
    }
    const unknown = await cairn(['--nope']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, `cairn: error: unknown option '--nope'\n(see "cairn --help")\n`);
    const typo = await cairn(['serch', 'x']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^cairn: error: unknown command 'serch'\n\(Did you mean search\?\)\n\(see "cairn --help"\)\n$/);
  });

  test('an empty query or question is a usage error (exit 2), not a search for nothing', async () => {
    for (const query of ['', '   ']) {
      const run = await cairn(['search', query]);
      assert.equal(run.code, 2, JSON.stringify(query));
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, 'cairn: error: the query is empty: give some words to look for, or a filter such as tag:idea\n(see "cairn search --help")\n');
    }
    const ask = await cairn(['ask', '']);
    assert.equal(ask.code, 2);
    assert.match(ask.stderr, /^cairn: error: the question is empty/);
  });

  test('--help still shows the whole help, with exit code 0', async () => {
    const run = await cairn(['search', '--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: cairn search \[options\] <query>/);
    assert.match(run.stdout, /--k <n>/);
  });

  test('a passage kept in many notes names three of them and counts the rest; --json lists every copy', async () => {
    const vault = path.join(cwd, 'copies');
    const notes = ['2021', '2022', '2023', '2024', '2025', '2026'].map((year) => `Minutes/${year}.md`);
    for (const note of notes) {
      await mkdir(path.dirname(path.join(vault, note)), { recursive: true });
      await writeFile(path.join(vault, note), '# Standing items\n\nWater the greenhouse seedlings before the committee walks the allotment.\n');
    }
    const config = path.join(cwd, 'copies.toml');
    await writeFile(config, '[embedding]\nadapt = false\n');
    const args = ['--vault', vault, '--data-dir', path.join(cwd, 'copies-index'), '--config', config];
    const text = await cairn(['search', 'greenhouse seedlings', ...args]);
    assert.equal(text.code, 0, text.stderr);
    const [shown, ...others] = notes;
    assert.match(text.stdout, new RegExp(`^1\\. ${shown} § Standing items`, 'm'));
    const copies = others.slice(0, 3).map((note) => `${note} \\(lines 1-3\\)`).join(', ');
    assert.match(text.stdout, new RegExp(`the same passage is also in ${copies} and 2 more \\(--json lists them all\\)`));
    const json = await cairn(['search', 'greenhouse seedlings', '--json', ...args]);
    const { results } = JSON.parse(json.stdout) as { results: Array<{ path: string; sameText?: Array<{ path: string }> }> };
    assert.equal(results.length, 1);
    assert.deepEqual(results[0]!.sameText?.map((copy) => copy.path), others);
    const ask = await cairn(['ask', 'When are the greenhouse seedlings watered?', ...args]);
    assert.equal(ask.code, 0, ask.stderr);
    assert.match(ask.stdout, new RegExp(`\\[1\\] ${shown} § Standing items \\(lines 3-3\\), also in ${others.slice(0, 3).join(', ')} and 2 more`));
  });

  test('search names headings as the page shows them and shows the text around the match, as the app does', async () => {
    const vault = path.join(cwd, 'shown');
    await mkdir(vault, { recursive: true });
    const filler = 'The committee met in the hall and talked at length about the weather and the hedges. '.repeat(5);
    await writeFile(path.join(vault, 'Minutes.md'), `# Minutes\n\n## The \`rota\` for 2nd&ndash;4th weeks\n\n${filler}Then it agreed who waters the polytunnel.\n`);
    const config = path.join(cwd, 'shown.toml');
    await writeFile(config, '[embedding]\nadapt = false\n');
    const run = await cairn(['search', 'polytunnel', '--vault', vault, '--data-dir', path.join(cwd, 'shown-index'), '--config', config]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^1\. Minutes\.md § Minutes › The rota for 2nd\u20134th weeks \(lines 1-5\)$/m);
    const snippet = run.stdout.split('\n')[1]!;
    assert.match(snippet, /^ {3}….*who waters the polytunnel\.$/);
    assert.doesNotMatch(snippet, /##|`/);
  });

  test('index warns of a note read as Windows-1252, and status lists it apart from the files that failed', async () => {
    const vault = path.join(cwd, 'encodings');
    await mkdir(vault, { recursive: true });
    await writeFile(path.join(vault, 'Old.md'), Buffer.from('# Old\n\nCaf\xe9 notes from \x93before\x94.\n', 'latin1'));
    await writeFile(path.join(vault, 'Scan.md'), Buffer.from([0x25, 0x50, 0x00, 0x01]));
    const config = path.join(cwd, 'encodings.toml');
    await writeFile(config, '[embedding]\nadapt = false\n');
    const common = ['--vault', vault, '--data-dir', path.join(cwd, 'encodings-index'), '--config', config];
    const indexed = await cairn(['index', ...common]);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.match(indexed.stderr, /warning: Old\.md: not UTF-8: read as Windows-1252/);
    const status = await cairn(['status', ...common]);
    assert.match(status.stdout, /^note warning {3}Old\.md: not UTF-8: read as Windows-1252/m);
    assert.match(status.stdout, /^failed {9}Scan\.md: .*binary/m);
    const found = await cairn(['search', 'café before', ...common]);
    assert.match(found.stdout, /Café notes from “before”\./);
  });

  test('serve --port on a port in use says so in one line (no raw EADDRINUSE) and exits 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await cairn(['serve', '--port', String(port), '--no-open', '--vault', path.join(REPO, 'sample-vault'), '--data-dir', path.join(cwd, 'index')], 150_000);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, '');
      const errors = run.stderr.split('\n').filter((line) => line.includes('error'));
      assert.deepEqual(errors, [`cairn: error: port ${port} on 127.0.0.1 is in use (another Cairn, or another program): choose another with --port, or --port 0 for any free port`]);
      assert.doesNotMatch(run.stderr, /EADDRINUSE|at .*\.ts:\d+/);
    } finally {
      blocker.close();
    }
  });
});
