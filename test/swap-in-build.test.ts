// A build swapped in whole (cli/build/swapInBuild.ts, used for the command line's and the UI's builds): readers
// never see half a build, two builds at once both finish, and a failed build leaves the last one in place.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { swapInBuild } from '../cli/build/swapInBuild.js';

const root = await mkdtemp(path.join(tmpdir(), 'cairn-swap-'));
after(() => rm(root, { recursive: true, force: true }));

/** A build that writes its files one by one, slowly enough for a reader to look in between. */
const slowBuild = (label: string) => async (staging: string) => {
  await mkdir(staging, { recursive: true });
  for (const name of ['a.js', 'b.js', 'marker.js']) {
    await writeFile(path.join(staging, name), label);
    await sleep(20);
  }
};

describe('swapInBuild', () => {
  it('puts a finished build in place, never a partial one, and leaves no staging folder behind', async () => {
    const dist = path.join(root, 'one', 'dist');
    await mkdir(path.dirname(dist), { recursive: true });
    await swapInBuild(dist, 'marker.js', slowBuild('first'));
    let partial = false;
    const watching = (async () => {
      for (let i = 0; i < 40; i++) {
        const names = await readdir(dist).catch(() => undefined);
        if (names && names.length !== 3) partial = true;
        await sleep(2);
      }
    })();
    await swapInBuild(dist, 'marker.js', slowBuild('second'));
    await watching;
    assert.equal(partial, false);
    assert.equal(await readFile(path.join(dist, 'a.js'), 'utf8'), 'second');
    assert.deepEqual(await readdir(path.dirname(dist)), ['dist']);
  });

  it('lets two builds at once both finish, one of them in place', async () => {
    const dist = path.join(root, 'two', 'dist');
    await mkdir(path.dirname(dist), { recursive: true });
    await Promise.all([swapInBuild(dist, 'marker.js', slowBuild('x')), swapInBuild(dist, 'marker.js', slowBuild('y'))]);
    assert.deepEqual((await readdir(dist)).sort(), ['a.js', 'b.js', 'marker.js']);
    assert.match(await readFile(path.join(dist, 'marker.js'), 'utf8'), /^[xy]$/);
    assert.deepEqual(await readdir(path.dirname(dist)), ['dist']);
  });

  it('keeps the last build when a build fails', async () => {
    const dist = path.join(root, 'three', 'dist');
    await mkdir(path.dirname(dist), { recursive: true });
    await swapInBuild(dist, 'marker.js', slowBuild('good'));
    await assert.rejects(
      swapInBuild(dist, 'marker.js', async (staging) => {
        await mkdir(staging);
        await writeFile(path.join(staging, 'a.js'), 'half');
        throw new Error('syntax error in a source');
      }),
      /syntax error/,
    );
    assert.equal(await readFile(path.join(dist, 'a.js'), 'utf8'), 'good');
    assert.deepEqual(await readdir(path.dirname(dist)), ['dist']);
  });
});
