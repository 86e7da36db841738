// Child process: builds one HNSW graph over the rows it is sent and writes it to a file (see hnswGraphBuild.ts).
// A process, not a worker thread: faiss-node keeps its class constructors in process-wide statics, so loading it
// in a second thread breaks faiss in the first.
import { addRows } from './faissRows.js';
import { requireFaiss } from './faissRuntime.js';
import { createTunedHnsw } from './hnswTuning.js';

export interface HnswBuildJob {
  rows: Float32Array;
  dims: number;
  file: string;
}

export type HnswBuildReply = { ok: true } | { ok: false; message: string };

process.once('message', (job: HnswBuildJob) => {
  let reply: HnswBuildReply;
  try {
    const graph = createTunedHnsw(requireFaiss(), job.dims);
    addRows(graph, job.rows, job.dims, 0, job.rows.length / job.dims);
    graph.write(job.file);
    reply = { ok: true };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  process.send!(reply, () => process.disconnect());
});
