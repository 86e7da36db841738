// Child process: builds one HNSW graph over the rows it is sent and writes it to a file (see hnswGraphBuild.ts).
// A process, not a worker thread: faiss-node keeps its class constructors in process-wide statics, so loading it
// in a second thread breaks faiss in the first.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { addRows } from './faissRows.js';
import { requireFaiss } from './faissRuntime.js';
import { createTunedHnsw } from './hnswTuning.js';

export interface HnswBuildJob {
  rows: Float32Array;
  dims: number;
  file: string;
}

/** On success, the size and SHA-256 of the graph file (so that a save can link the file rather than write it again). */
export type HnswBuildReply = { ok: true; bytes: number; sha256: string } | { ok: false; message: string };

process.once('message', (job: HnswBuildJob) => {
  let reply: HnswBuildReply;
  try {
    const graph = createTunedHnsw(requireFaiss(), job.dims);
    addRows(graph, job.rows, job.dims, 0, job.rows.length / job.dims);
    graph.write(job.file);
    const bytes = readFileSync(job.file);
    reply = { ok: true, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  process.send!(reply, () => process.disconnect());
});
