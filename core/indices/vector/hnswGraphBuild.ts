/**
 * HNSW graphs are built in a child process: adding a few hundred thousand vectors to a graph takes minutes, and the
 * event loop (searches, the app's requests) must keep going meanwhile. The store's rows go to the child in slices,
 * in turns of the loop (copying and serialising them in one go held the loop for 120 ms at 200,000 vectors); the
 * graph comes back as a file faiss reads here. The file is kept while the graph is in use, so that a save links it
 * instead of writing the graph on the event loop.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FileDigest } from '../../embedding/fileDigest.js';
import { describeExit, forkWorkerProcess, keepAlive, stopWorker } from '../../process/workerProcess.js';
import { TimeSlices } from '../../process/timeSlices.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import type { HnswBuildMessage, HnswBuildReply } from './hnswGraphWorker.js';
import type { VectorStore } from './vectorStore.js';
import type { NativeFile } from './vectorTypes.js';

/** Floats per message to the builder (1 MB): a turn sends several, none holds the loop. */
const SLICE_FLOATS = 1 << 18;
/**
 * The builder uses every core (faiss adds to an HNSW graph with OpenMP threads: 100,000 x 101 took 7.8 s on one
 * thread, 4.7 s on two) at a lower priority, so it takes only what the app, the indexer and the embedding process
 * leave: a first graph is mostly built once the embedding is done, when both cores are free.
 */
const BUILD_THREADS = Math.max(1, Math.min(os.availableParallelism(), 8));
const BUILD_NICENESS = 10;

/** Builders still running when this process exits are stopped (their graphs are of no use to anyone), and the files of graphs built are deleted. */
const running = new Set<ChildProcess>();
const keptDirs = new Set<string>();
process.once('exit', () => {
  for (const worker of running) worker.kill('SIGKILL');
  for (const dir of keptDirs) rmSync(dir, { recursive: true, force: true });
});

/** A graph built, and the file it was read from (deleted by `release`, or when this process exits). */
export interface BuiltGraph {
  index: FaissIndex;
  /**
   * The id of each graph label: the id of the store row sent as that label. A removal while the rows are sent moves
   * later rows down (never up), so a row moved below the next slice is not in the graph, and none is sent twice.
   */
  ids: string[];
  file: NativeFile;
  release(): Promise<void>;
}

export interface HnswBuild {
  /** A tuned HNSW graph over the store's rows as they were sent. */
  readonly graph: Promise<BuiltGraph>;
  /** The builder's process id once it is started (diagnostics and tests). */
  readonly pid: number | undefined;
  /** Keeps this process alive until the build ends: someone is waiting for it (a save, a benchmark). */
  hold(): void;
}

/**
 * Starts building a graph over the rows `store` holds now (rows appended later are not sent). Until held, the build
 * does not keep this process alive: a CLI search that is done need not wait for a graph it will not use (the
 * builder is stopped at exit).
 */
export function buildHnswGraph(faiss: FaissModule, store: VectorStore): HnswBuild {
  let worker: ChildProcess | undefined;
  let held = false;
  const graph = (async (): Promise<BuiltGraph> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-hnsw-build-'));
    keptDirs.add(dir);
    const release = async () => {
      keptDirs.delete(dir);
      await rm(dir, { recursive: true, force: true });
    };
    try {
      const file = path.join(dir, 'graph.faiss');
      const child = forkWorkerProcess(import.meta.url, 'hnswGraphWorker', { ...process.env, OMP_NUM_THREADS: String(BUILD_THREADS) });
      worker = child;
      try {
        if (child.pid !== undefined) os.setPriority(child.pid, BUILD_NICENESS);
      } catch {
        // Not permitted here: the build runs at the app's priority.
      }
      running.add(child);
      keepAlive(child, held);
      const sent = (async () => {
        await send(child, { type: 'start', dims: store.dims, file });
        const ids = await sendRows(child, store);
        await send(child, { type: 'end' });
        return ids;
      })();
      const [ids, digest] = await Promise.all([sent, outcome(child)]);
      return { index: faiss.Index.read(file), ids, file: { path: file, digest }, release };
    } catch (error) {
      await release();
      throw error;
    } finally {
      if (worker) {
        running.delete(worker);
        await stopWorker(worker);
      }
    }
  })();
  return {
    graph,
    get pid() {
      return worker?.pid;
    },
    hold() {
      held = true;
      if (worker) keepAlive(worker, true);
    },
  };
}

/** Sends the store's rows present at the start, a slice at a time, each with the ids of its rows as they are then. */
async function sendRows(worker: ChildProcess, store: VectorStore): Promise<string[]> {
  const { dims } = store;
  const rowsPerSlice = Math.max(1, Math.floor(SLICE_FLOATS / dims));
  const end = store.size;
  const ids: string[] = [];
  const turns = new TimeSlices();
  for (let from = 0; from < Math.min(end, store.size); ) {
    const to = Math.min(from + rowsPerSlice, end, store.size);
    const rows = store.data().slice(from * dims, to * dims);
    for (let label = from; label < to; label++) ids.push(store.idAt(label));
    // Waiting for each write keeps one slice in flight; the child only stores them until the last.
    await send(worker, { type: 'rows', rows });
    from = to;
    if (turns.due()) await turns.next();
  }
  return ids;
}

function send(worker: ChildProcess, message: HnswBuildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    worker.send(message, (error) => (error ? reject(new Error(`building the HNSW graph failed: ${error.message}`)) : resolve()));
  });
}

function outcome(worker: ChildProcess): Promise<FileDigest> {
  return new Promise((resolve, reject) => {
    let reply: HnswBuildReply | undefined;
    worker.once('message', (message: HnswBuildReply) => (reply = message));
    worker.once('error', (error) => reject(new Error(`building the HNSW graph failed: ${error.message}`)));
    worker.once('exit', (code, signal) => {
      if (reply?.ok) resolve({ bytes: reply.bytes, sha256: reply.sha256 });
      else reject(new Error(`building the HNSW graph failed: ${reply ? reply.message : `the builder ${describeExit(worker, code, signal)}`}`));
    });
  });
}
