// Scale stage 3 (a fresh process): edit → searchable through the running service and its watcher, as
// bench/live.bench.ts measures it: append a unique word to a note and time until a keyword search finds it.
// The notes are given back their text and modification time afterwards, so the vault stays as generated.
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CairnService } from '../../core/app/index.js';
import { percentile, timeEditToSearchable } from '../support.js';
import type { VaultSamples } from './generateVault.js';
import { reportResult, stageArgs } from './stageSupport.js';

const [vault, dataDir, samples, configFile, stateFile, editsArg] = stageArgs('editToSearchable.ts <vault> <data-dir> <samples.json> <config.toml> <state.json> <edits>', 6);
const { editable } = JSON.parse(await readFile(samples, 'utf8')) as VaultSamples;
const edits = Number(editsArg);

const service = await CairnService.start({ vault, dataDir, configFile, stateFile });
const originals = new Map<string, { text: string; mtimeMs: number }>();
const latencies: number[] = [];
try {
  for (let i = 0; i < edits; i++) {
    const note = editable[i % editable.length];
    const file = path.join(vault, note);
    const text = await readFile(file, 'utf8');
    if (!originals.has(note)) originals.set(note, { text, mtimeMs: (await stat(file)).mtimeMs });
    latencies.push(await timeEditToSearchable(service, vault, note, `zqscale${i}marker`));
  }
} finally {
  for (const [note, { text, mtimeMs }] of originals) {
    await writeFile(path.join(vault, note), text);
    await utimes(path.join(vault, note), mtimeMs / 1000, mtimeMs / 1000);
  }
  // The restored notes are indexed again before the service closes, so the saved index matches the vault.
  await new Promise((r) => setTimeout(r, 1000));
  await service.idle();
  await service.close();
}
reportResult({ edits, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies) });
