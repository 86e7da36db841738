import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CairnChild, classify, runProbe, sampleGroup, sleep, type RunResult } from './cairnProcess.js';
import { compareProbes, type Probe } from './checker.js';
import type { FaultRecord, Report } from './report.js';
import type { Random } from './random.js';
import { QUERIES } from './vaultGen.js';

/** The fault cannot be judged: the fresh index it would be compared with is itself broken. */
export class CheckError extends Error {}

/** One kind of fault: each round injects one or more faults, each recorded with `ctx.fault`. */
export interface Scenario {
  name: string;
  run(ctx: Context, rng: Random, round: number): Promise<void>;
}

export interface Reference {
  dataDir: string;
  probe: Probe;
  /** How long the fresh `cairn index` took: the window in which kills are timed. */
  indexMs: number;
}

/**
 * Everything a scenario needs: one working vault path (reset from the generated template before each fault, so
 * references and copied index folders stay valid), fresh data folders, the Cairn command line, and the reference
 * (a fresh full index) of whatever the vault holds now.
 */
export class Context {
  readonly vault: string;
  readonly configFile: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly template: string;
  private readonly references = new Map<string, Reference>();
  private readonly children = new Set<CairnChild>();
  /** Every Cairn process of the current fault, for its log. */
  private finished: CairnChild[] = [];
  private dirs = 0;
  /** Bound for one index run: ten times the fresh index of the template, at least a minute. */
  indexTimeoutMs = 60_000;

  constructor(
    readonly root: string,
    readonly report: Report,
  ) {
    this.vault = path.join(root, 'vault');
    this.template = path.join(root, 'template');
    this.configFile = path.join(root, 'config.toml');
    // Nothing may fall back to the user's own data folder.
    this.env = { ...process.env, XDG_DATA_HOME: path.join(root, 'xdg'), NO_COLOR: '1' };
  }

  /** Makes the template (filled by `fill`), the config file and the first working vault. */
  setUp(fill: (dir: string) => void): void {
    mkdirSync(this.template, { recursive: true });
    fill(this.template);
    // The built-in defaults, from a file of our own: ./config.toml of the working directory must not apply. Vault
    // adaptation is off: a table adapted to the vault as it was at some moment of a scenario rightly differs from one
    // adapted to the final vault, so a recovered index could not be compared with a fresh one (its own tests cover
    // an interrupted adaptation).
    writeFileSync(this.configFile, '# Written by the fault suite: built-in defaults, but vault adaptation off.\n[embedding]\nadapt = false\n');
    this.resetVault();
  }

  resetVault(): void {
    rmSync(this.vault, { recursive: true, force: true });
    cpSync(this.template, this.vault, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  }

  newDataDir(label: string): string {
    const dir = path.join(this.root, 'data', `${String(++this.dirs).padStart(3, '0')}-${label}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** The one per-vault folder Cairn keeps inside a data folder. */
  indexDir(dataDir: string): string {
    const vaults = path.join(dataDir, 'vaults');
    const [name] = readdirSync(vaults);
    if (!name) throw new Error(`no index folder in ${vaults}`);
    return path.join(vaults, name);
  }

  copyData(from: string, label: string): string {
    const to = this.newDataDir(label);
    cpSync(from, to, { recursive: true, preserveTimestamps: true });
    return to;
  }

  args(command: string, dataDir: string, ...rest: string[]): string[] {
    return [command, '--vault', this.vault, '--data-dir', dataDir, '--config', this.configFile, ...rest];
  }

  async run(command: string, dataDir: string, rest: string[] = [], timeoutMs = this.indexTimeoutMs): Promise<RunResult> {
    const child = this.start(command, dataDir, rest);
    const exit = await child.waitExit(timeoutMs);
    child.killGroup(); // nothing of a finished command may linger
    return child.result(exit === undefined);
  }

  start(command: string, dataDir: string, rest: string[] = []): CairnChild {
    const child = new CairnChild(this.args(command, dataDir, ...rest), { cwd: this.root, env: this.env });
    this.children.add(child);
    this.finished.push(child);
    return child;
  }

  /** Runs one fault, records it (a suite error counts as a crash, so it is never lost) and kills what it left running. */
  async fault(scenario: string, body: (rec: FaultRecord) => Promise<void>): Promise<void> {
    const rec: FaultRecord = { scenario, fault: '(setting up)', mismatches: [], hangs: [], crashes: [], notes: [] };
    const started = Date.now();
    try {
      await body(rec);
    } catch (error) {
      if (error instanceof CheckError) rec.crashes.push(`cannot check: ${error.message}`);
      else rec.crashes.push(`suite error: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 3).join(' | ') : String(error)}`);
    } finally {
      this.cleanUp();
    }
    const number = this.report.record(rec, Date.now() - started);
    if (rec.mismatches.length || rec.hangs.length || rec.crashes.length) this.keepLogs(number);
    this.finished = [];
  }

  /** The commands a failed fault ran, with their output, for a post-mortem. */
  private keepLogs(number: number): void {
    const file = path.join(this.root, 'logs', `fault-${String(number).padStart(3, '0')}.log`);
    const text = this.finished.map((c) => `$ cairn ${c.args.join(' ')}\n# pid ${c.pid}, ${(c.elapsedMs / 1000).toFixed(1)} s\n--- stdout\n${c.stdout}\n--- stderr\n${c.stderr}\n`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text.join('\n'));
    this.report.note(`    log: ${file}`);
  }

  /** Kills whatever a fault left running. */
  cleanUp(): void {
    for (const child of this.children) child.killGroup();
    this.children.clear();
  }

  /** A fresh full index of the vault as it is now (cached by the vault's content, mtimes and links). */
  async reference(rec?: FaultRecord): Promise<Reference> {
    const key = fingerprint(this.vault);
    const cached = this.references.get(key);
    if (cached) return cached;
    const dataDir = this.newDataDir('reference');
    const result = await this.run('index', dataDir, ['--json']);
    const outcome = classify(result);
    if (outcome.kind !== 'ok') {
      const problem = `the fresh reference index itself failed: ${outcome.kind}: ${outcome.detail}`;
      if (!rec) throw new CheckError(problem);
      (outcome.kind === 'hang' ? rec.hangs : rec.crashes).push(problem);
    }
    const probe = await this.probe(dataDir);
    // A fresh index that does not read back whole makes every comparison meaningless: stop here.
    if ('error' in probe || probe.pendingRebuild) {
      throw new CheckError(`the fresh reference index in ${dataDir} does not read back: ${'error' in probe ? probe.error : probe.pendingRebuild}`);
    }
    const reference = { dataDir, probe, indexMs: result.ms };
    this.references.set(key, reference);
    return reference;
  }

  async probe(dataDir: string): Promise<Probe | { error: string }> {
    const args = ['--config', this.configFile, '--vault', this.vault, '--data-dir', dataDir, '--queries', JSON.stringify(QUERIES)];
    const result = await runProbe(args, { cwd: this.root, env: this.env }, this.indexTimeoutMs);
    const outcome = classify(result);
    if (outcome.kind !== 'ok') return { error: `${outcome.kind}: ${outcome.detail}` };
    return JSON.parse(result.stdout) as Probe;
  }

  /**
   * Checks a command's ending into the record: a hang or a crash is counted, a clear error is noted.
   * Returns true when it exited 0.
   */
  judge(rec: FaultRecord, what: string, result: RunResult): boolean {
    const outcome = classify(result);
    if (outcome.kind === 'hang') rec.hangs.push(`${what}: ${outcome.detail}`);
    else if (outcome.kind === 'crash') rec.crashes.push(`${what}: ${outcome.detail}`);
    else if (outcome.kind === 'error') rec.notes.push(`${what}: ${outcome.detail}`);
    return outcome.kind === 'ok';
  }

  /** Recovery: `cairn index` on the faulted data folder (unless told not to), then the probe against the reference. */
  async converge(rec: FaultRecord, dataDir: string, { reindex = true } = {}): Promise<void> {
    if (reindex) {
      const result = await this.run('index', dataDir, ['--json']);
      if (this.judge(rec, 'recovery cairn index', result)) {
        const summary = JSON.parse(result.stdout) as { embedded: number };
        if (summary.embedded) rec.notes.push(`re-embedded ${summary.embedded} chunks`);
      } else {
        rec.mismatches.push('the recovery index did not complete');
      }
    }
    const reference = await this.reference(rec);
    const probe = await this.probe(dataDir);
    if ('error' in probe) rec.mismatches.push(`the recovered index cannot be read: ${probe.error}`);
    else rec.mismatches.push(...compareProbes(probe, reference.probe));
  }

  /** After a kill -9 of a Cairn process: its worker processes must go by themselves. */
  async checkOrphans(rec: FaultRecord, child: CairnChild, graceMs = 5000): Promise<void> {
    const deadline = Date.now() + graceMs;
    let left = sampleGroup(child.pid).pids;
    while (left.length && Date.now() < deadline) {
      await sleep(200);
      left = sampleGroup(child.pid).pids;
    }
    if (left.length) rec.hangs.push(`${left.length} process(es) of the killed cairn (pids ${left.join(', ')}) still running ${graceMs / 1000} s later`);
    child.killGroup();
  }
}

/**
 * What the vault holds, without following links: paths, kinds, sizes, mtimes, content hashes and link targets.
 * Names are read as bytes, so a file name that is not UTF-8 is still told apart.
 */
export function fingerprint(dir: string): string {
  const hash = createHash('sha256');
  const walk = (abs: Buffer) => {
    const names = readdirSync(abs, { encoding: 'buffer' }).sort(Buffer.compare);
    for (const name of names) {
      const child = Buffer.concat([abs, Buffer.from('/'), name]);
      const info = lstatSync(child);
      hash.update(name);
      if (info.isSymbolicLink()) hash.update(` L ${readlinkSync(child, 'utf8')}\n`);
      else if (info.isDirectory()) {
        hash.update(' D\n');
        walk(child);
      } else if (info.isFile()) hash.update(` F ${info.size} ${info.mtimeMs} ${createHash('sha256').update(readFileSync(child)).digest('hex')}\n`);
      else hash.update(` O ${info.mode}\n`);
    }
  };
  walk(Buffer.from(dir));
  return hash.digest('hex');
}
