// Runs one scale stage in a fresh child process (its own process group, so a stage past its time limit is ended with
// all its children) while sampling the memory of its process tree; returns the stage's result line.
import { spawn } from 'node:child_process';
import { sampleProcessTree, type TreeMemory } from './processTreeMemory.js';
import { stageScript, type StageName } from './stageBuild.js';
import { RESULT_PREFIX } from './stageSupport.js';

export interface StageRun<T> {
  result: T;
  memory: TreeMemory;
  /** Process start → result line, seconds. */
  resultSeconds: number;
  seconds: number;
}

export class StageTimeout extends Error {}

/** Runs a stage built by buildStages (stageBuild.ts). */
export function runStage<T>(script: StageName, args: string[], deadline: number): Promise<StageRun<T>> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [stageScript(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const memory = sampleProcessTree(child.pid!);
    let resultLine: string | undefined;
    let resultSeconds = 0;
    let pending = '';
    child.stdout.on('data', (data: Buffer) => {
      pending += data.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith(RESULT_PREFIX)) {
          resultLine ??= line.slice(RESULT_PREFIX.length);
          resultSeconds ||= (performance.now() - started) / 1000;
        } else process.stdout.write(`${line}\n`);
      }
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, Math.max(0, deadline - Date.now()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const peaks = memory.stop();
      if (timedOut) return reject(new StageTimeout(`${script} passed the time limit`));
      if (code !== 0 || !resultLine) return reject(new Error(`${script} ${code !== 0 ? `exited ${signal ?? code}` : 'gave no result'}`));
      resolve({ result: JSON.parse(resultLine) as T, memory: peaks, resultSeconds, seconds: (performance.now() - started) / 1000 });
    });
  });
}
