// Child process: builds one HNSW graph over the rows it is sent and writes it to a file (see hnswGraphBuild.ts).
// A process, not a worker thread: faiss-node keeps its class constructors in process-wide statics, so loading it
// in a second thread breaks faiss in the first.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { addRows } from './faissRows.js';
import { requireFaiss } from './faissRuntime.js';
import { createTunedHnsw } from './hnswTuning.js';

/**
 * What the parent sends, in order: `start`, any number of `rows` (row-major slices, `dims` wide: the graph's labels
 * follow the rows in the order sent), then `end`. The rows come in slices so that the parent never copies or
 * serialises a whole store in one go (80 MB at 200,000 vectors, 400 MB at a million).
 */
export type HnswBuildMessage = { type: 'start'; dims: number; file: string } | { type: 'rows'; rows: Float32Array } | { type: 'end' };

/** On success, the size and SHA-256 of the graph file (so that a save can link the file rather than write it again). */
export type HnswBuildReply = { ok: true; bytes: number; sha256: string } | { ok: false; message: string };

let job: { dims: number; file: string } | undefined;
// Kept until `end`: the graph is built once all rows are here, so the parent's copy is done quickly and the
// store it reads changes as little as possible meanwhile.
const slices: Float32Array[] = [];

function build(): HnswBuildReply {
  if (!job) return { ok: false, message: 'rows came before the build was started' };
  const graph = createTunedHnsw(requireFaiss(), job.dims);
  for (const rows of slices.splice(0)) addRows(graph, rows, job.dims, 0, rows.length / job.dims);
  graph.write(job.file);
  const bytes = readFileSync(job.file);
  return { ok: true, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

process.on('message', (message: HnswBuildMessage) => {
  if (message.type === 'start') job = { dims: message.dims, file: message.file };
  else if (message.type === 'rows') slices.push(message.rows);
  else {
    let reply: HnswBuildReply;
    try {
      reply = build();
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    process.send!(reply, () => process.disconnect());
  }
});
