import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AppEvent } from '../core/contract/appApi.js';
import { CairnService } from '../core/app/index.js';
import { eventually } from './support/eventually.js';

const SAMPLE = new URL('../sample-vault/', import.meta.url).pathname;

describe('config.toml hot reload', { timeout: 120_000 }, () => {
  let root: string;
  let configFile: string;
  let service: CairnService;
  const events: AppEvent[] = [];
  let onIndexingStarted: (() => void) | undefined;
  const config = (extra: string) => `# my settings\n[vault]\npath = "vault"  # relative to this file\n\n[index]\ndata_dir = "data"\n${extra}`;

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-config-'));
    await cp(SAMPLE, path.join(root, 'vault'), { recursive: true });
    configFile = path.join(root, 'config.toml');
    await writeFile(configFile, config(''));
    service = await CairnService.start({
      configFile,
      listener: (e) => {
        events.push(e);
        if (e.type === 'indexing-started') onIndexingStarted?.();
      },
    });
  });
  after(async () => {
    await service?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a search option applies at once, without a rebuild', async () => {
    assert.ok((await service.search({ query: 'chunk' })).results.length > 3);
    await writeFile(configFile, config('\n[search]\nk = 3\n'));
    await eventually(async () => (await service.search({ query: 'chunk' })).results.length === 3, 'k = 3 to apply');
    assert.ok(events.some((e) => e.type === 'config-applied' && !e.rebuild));
    assert.ok(!events.some((e) => e.type === 'rebuild-started' && e.reason !== 'no index yet'));
  });

  it('an invalid file is reported with file, line and key, and the last good config stays', async () => {
    await writeFile(configFile, config('\n[search]\nk = = 3\n'));
    await eventually(() => events.some((e) => e.type === 'config-rejected'), 'the rejection');
    const rejected = events.find((e) => e.type === 'config-rejected');
    assert.ok(rejected?.type === 'config-rejected');
    assert.equal(rejected.problem.file, configFile);
    assert.equal(rejected.problem.line, 9);
    assert.equal((await service.search({ query: 'chunk' })).results.length, 3, 'the last good config is no longer in force');
    assert.ok((await service.getState()).configProblem);

    await writeFile(configFile, config('\n[chunking]\nmax_chunk_size = 100\n'));
    await eventually(() => events.filter((e) => e.type === 'config-rejected').some((e) => e.type === 'config-rejected' && e.problem.key === 'chunking.max_chunk_size'), 'the unknown key');
    const unknown = events.findLast((e) => e.type === 'config-rejected');
    assert.ok(unknown?.type === 'config-rejected' && unknown.problem.line === 9);
  });

  it('a chunking change rebuilds (announced with its reason) while search keeps answering', async () => {
    const before = (await service.getState()).status!.chunks;
    await writeFile(configFile, config('\n[search]\nk = 3\n\n[chunking]\nmax_chunk_chars = 300\nmin_chunk_chars = 50\noverlap_chars = 20\n'));
    await eventually(() => events.some((e) => e.type === 'rebuild-started' && /chunking config changed/.test(e.reason)), 'the rebuild to start');
    assert.ok((await service.search({ query: 'overlap' })).results.length > 0, 'search stopped answering during the rebuild');
    await eventually(async () => ((await service.getState()).status?.chunks ?? 0) > before, 'the new chunking');
    assert.equal((await service.getState()).configProblem, null);
  });

  it('saving values from the app keeps the comments and layout of the file', async () => {
    const result = await service.saveConfigValues({ 'search.k': 4, 'search.mode': 'keyword', 'chunking.overlap_chars': 25 });
    assert.deepEqual(result, { ok: true, rebuild: 'chunking or embedding settings changed in config.toml' });
    const text = await readFile(configFile, 'utf8');
    assert.match(text, /^# my settings$/m);
    assert.match(text, /^path = "vault"  # relative to this file$/m);
    assert.match(text, /^k = 4$/m);
    assert.match(text, /^mode = "keyword"$/m);
    assert.match(text, /^overlap_chars = 25$/m);
  });

  it('an invalid value from the app changes nothing and names the key', async () => {
    const before = await readFile(configFile, 'utf8');
    const result = await service.saveConfigValues({ 'chunking.min_chunk_chars': 5000 });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.problem.key === 'chunking.min_chunk_chars');
    assert.equal(await readFile(configFile, 'utf8'), before);
  });

  it('a note saved while a config change rebuilds, after the rebuild read the vault, is indexed right after it', async () => {
    const note = path.join(root, 'vault', 'Saved meanwhile.md');
    await service.idle();
    let written = false;
    // The rebuild's file list is taken before it announces its start: a note written then is not in it. Written
    // synchronously, so that it is on disk before the rebuild goes on.
    onIndexingStarted = () => {
      onIndexingStarted = undefined;
      writeFileSync(note, '# Saved meanwhile\n\nThe quokka note was written while the index was rebuilt.\n');
      written = true;
    };
    // Adaptation off: the reopen a learned vocabulary brings would read the note anyway.
    await writeFile(configFile, config('\n[search]\nk = 3\n\n[chunking]\nmax_chunk_chars = 500\nmin_chunk_chars = 60\noverlap_chars = 20\n\n[embedding]\nadapt = false\n'));
    await eventually(() => written, 'the rebuild to start');
    // Not left for the reconcile timer (300 s).
    await eventually(async () => (await service.search({ query: 'quokka', mode: 'keyword' })).results.some((r) => r.path === 'Saved meanwhile.md'), 'the note saved during the rebuild');
  });
});
