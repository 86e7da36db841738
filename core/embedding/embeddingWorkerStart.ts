// Starting the embedding worker process (embeddingWorker.ts) and sending it requests: the start waits for the model
// to load, with a timeout that progress restarts.
import type { ChildProcess } from 'node:child_process';
import { describeExit, forkWorkerProcess, stopWorker } from '../process/workerProcess.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './embeddingWorker.js';

export type ReadyReply = Extract<WorkerReply, { type: 'ready' }>;

/** Sends one request; a worker that has already exited is reported by its 'exit' event, not here. */
export function sendRequest(worker: ChildProcess, request: WorkerRequest) {
  if (worker.connected) worker.send(request);
}

/**
 * Starts a worker and resolves once its model is loaded; rejects with the worker's reason, after `timeoutMs` without
 * progress, or when `signal` aborts (the worker is stopped then).
 */
export function startWorker(init: WorkerInit, timeoutMs: number, signal?: AbortSignal): Promise<{ worker: ChildProcess; ready: ReadyReply }> {
  return new Promise((resolve, reject) => {
    const worker = forkWorkerProcess(import.meta.url, 'embeddingWorker');
    const finish = (error: Error | undefined, ready?: ReadyReply) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('close', onExit);
      if (error) {
        void stopWorker(worker);
        reject(error);
      } else {
        resolve({ worker, ready: ready! });
      }
    };
    const onMessage = (reply: WorkerReply) => {
      if (reply.type === 'loading') timer.refresh();
      else if (reply.type === 'ready') finish(undefined, reply);
      else if (reply.type === 'load-failed') finish(new Error(reply.message));
    };
    const onError = (e: Error) => finish(new Error(`the worker process failed: ${e.message}`));
    const onExit = (code: number | null, signal: string | null) => finish(new Error(`the worker process ${describeExit(worker, code, signal)} while loading`));
    const onAbort = () => finish(new Error('the model load was called off'));
    const timer = setTimeout(() => finish(new Error(`no progress for ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('close', onExit);
    sendRequest(worker, { type: 'init', init });
  });
}
