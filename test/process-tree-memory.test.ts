// The process-tree memory sampler on real processes: a child that holds memory and has a child of its own.
// Run: node --import tsx --test test/process-tree-memory.test.ts
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { it } from 'node:test';
import { sampleProcessTree } from '../bench/scale/processTreeMemory.js';

it('sums the peak memory of a process and its descendants, and keeps each one\'s peak', async () => {
  // The parent holds 150 MB and starts a grandchild holding 100 MB; both live 1.5 s.
  const grandchild = `const b = Buffer.alloc(100 * 2 ** 20, 1); setTimeout(() => b.length, 1500);`;
  const parent = `const b = Buffer.alloc(150 * 2 ** 20, 1); const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' }); c.on('exit', () => b.length);`;
  const child = spawn(process.execPath, ['-e', parent], { stdio: 'inherit' });
  const sampler = sampleProcessTree(child.pid!, 50);
  await once(child, 'exit');
  const peaks = sampler.stop();
  const MB = 2 ** 20;
  assert.ok(peaks.processes.main > 150 * MB, `main ${peaks.processes.main / MB} MB`);
  const others = Object.entries(peaks.processes).filter(([name]) => name !== 'main');
  assert.deepEqual(others.map(([name]) => name), ['node']);
  assert.ok(others[0][1] > 100 * MB, `grandchild ${others[0][1] / MB} MB`);
  assert.ok(peaks.sum > 250 * MB && peaks.sum <= peaks.processes.main + others[0][1], `sum ${peaks.sum / MB} MB`);
});
