/**
 * HNSW graphs are built in a child process: adding a few hundred thousand vectors to a graph takes minutes, and the
 * event loop (searches, the app's requests) must keep going meanwhile. The graph comes back as a file faiss reads here;
 * the file is kept while the graph is in use, so that a save links it instead of writing the graph on the event loop.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeExit, forkWorkerProcess, keepAlive, stopWorker } from '../../process/workerProcess.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import type { HnswBuildJob, HnswBuildReply } from './hnswGraphWorker.js';
import type { FileDigest } from '../../embedding/fileDigest.js';
import type { NativeFile } from './vectorTypes.js';

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
  file: NativeFile;
  release(): Promise<void>;
}

export interface HnswBuild {
  /** A tuned HNSW graph over the rows. */
  readonly graph: Promise<BuiltGraph>;
  /** Keeps this process alive until the build ends: someone is waiting for it (a save, a benchmark). */
  hold(): void;
}

/**
 * Starts building a graph over `rows` (row-major, `dims` wide). Until held, the build does not keep this process
 * alive: a CLI search that is done need not wait for a graph it will not use (the builder is stopped at exit).
 */
export function buildHnswGraph(faiss: FaissModule, rows: Float32Array, dims: number): HnswBuild {
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
      const job: HnswBuildJob = { rows, dims, file: path.join(dir, 'graph.faiss') };
      worker = forkWorkerProcess(import.meta.url, 'hnswGraphWorker');
      running.add(worker);
      keepAlive(worker, held);
      const digest = await outcome(worker, job);
      return { index: faiss.Index.read(job.file), file: { path: job.file, digest }, release };
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
    hold() {
      held = true;
      if (worker) keepAlive(worker, true);
    },
  };
}

function outcome(worker: ChildProcess, job: HnswBuildJob): Promise<FileDigest> {
  return new Promise((resolve, reject) => {
    let reply: HnswBuildReply | undefined;
    worker.once('message', (message: HnswBuildReply) => (reply = message));
    worker.once('error', (error) => reject(new Error(`building the HNSW graph failed: ${error.message}`)));
    worker.once('exit', (code, signal) => {
      if (reply?.ok) resolve({ bytes: reply.bytes, sha256: reply.sha256 });
      else reject(new Error(`building the HNSW graph failed: ${reply ? reply.message : `the builder ${describeExit(worker, code, signal)}`}`));
    });
    worker.send(job);
  });
}
