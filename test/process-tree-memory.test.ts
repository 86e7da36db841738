// The process-tree memory sampler on real processes: a child that holds memory and has a child of its own.
// Run: node --import tsx --test test/process-tree-memory.test.ts
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

it('leaves out a child with the root\'s own command line (one caught between fork and exec shares its pages)', async () => {
  // The same script file again, told by an environment variable not to start another: /proc shows the same command line.
  const dir = await mkdtemp(path.join(tmpdir(), 'cairn-tree-'));
  const file = path.join(dir, 'twice.cjs');
  await writeFile(
    file,
    `const b = Buffer.alloc((process.env.SECOND ? 100 : 150) * 2 ** 20, 1);
if (process.env.SECOND) setTimeout(() => b.length, 1500);
else require('node:child_process').spawn(process.execPath, [__filename], { stdio: 'inherit', env: { ...process.env, SECOND: '1' } }).on('exit', () => b.length);
`,
  );
  try {
    const child = spawn(process.execPath, [file], { stdio: 'inherit' });
    const sampler = sampleProcessTree(child.pid!, 50);
    await once(child, 'exit');
    const peaks = sampler.stop();
    const MB = 2 ** 20;
    assert.deepEqual(Object.keys(peaks.processes), ['main']);
    assert.ok(peaks.sum > 150 * MB && peaks.sum < 230 * MB, `sum ${peaks.sum / MB} MB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
