/**
 * Reads an index as it is (no indexing) and prints what the fault checker compares, as JSON: every chunk id of the
 * note store, keyword and vector indices, the link graph, failures, and the top results of fixed queries in every
 * mode. It opens the index with the same call as `cairn search --no-update`, but in one process for all queries.
 * Usage: probe.ts --config FILE --vault DIR --data-dir DIR --queries JSON
 */
import { parseArgs } from 'node:util';
import { CairnVault, type SearchMode } from '../core/app/index.js';
import { loadConfig } from '../core/config/loadConfig.js';
import type { Probe } from './checker.js';

const { values } = parseArgs({ options: { config: { type: 'string' }, vault: { type: 'string' }, 'data-dir': { type: 'string' }, queries: { type: 'string' } } });
try {
  process.stdout.write(`${JSON.stringify(await probe())}\n`);
} catch (error) {
  // Reported the way the CLI reports an error that Cairn raised, so a stack trace still means an escaped exception.
  process.stderr.write(`cairn: error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

async function probe(): Promise<Probe> {
  const { config } = await loadConfig(values.config);
  config.vault.path = values.vault!;
  config.index.data_dir = values['data-dir']!;
  const vault = await CairnVault.open(config);
  try {
    const status = vault.status();
    const searches: Probe['searches'] = {};
    for (const query of JSON.parse(values.queries ?? '[]') as string[]) {
      for (const mode of ['keyword', 'vector', 'hybrid'] as SearchMode[]) {
        const response = await vault.search({ query, mode, k: 10 });
        searches[`${mode}: ${query}`] = response.results.map((r) => [r.chunkId, r.score]);
      }
    }
    return {
      notes: status.notes,
      chunks: status.chunks,
      pendingRebuild: status.pendingRebuild ?? null,
      failed: status.failed.map((f) => f.path).sort(),
      snapshot: vault.snapshot(),
      searches,
    };
  } finally {
    await vault.close();
  }
}
