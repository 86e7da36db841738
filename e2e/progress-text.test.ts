// Without a browser (issue 14): the indexing progress text (first index wording, note counts, a smoothed time left
// that does not jump and never says "almost done" early), one-line ranges, model names, task lists and wikilinks in
// tables through the note view's Markdown pipeline (result snippets: test/snippet.test.ts). Here rather than in test/
// because the renderer's sources import with .ts extensions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDuration, lineRange, modelName } from '../renderer/src/format.ts';
import { NO_ETA, etaText, indexingHeading, nextEta, phaseText, type EtaState } from '../renderer/src/indexing/progressText.ts';
import { noteBodyHtml } from '../renderer/src/markdown/noteHtml.ts';

/** Feeds progress reports (seconds since start, notes done, the core's raw estimate) through the smoother. */
function run(total: number, reports: Array<[number, number, number | undefined]>): Array<{ done: number; eta: EtaState; text: string | null }> {
  let eta = NO_ETA;
  return reports.map(([t, done, raw]) => {
    eta = nextEta(eta, raw, done, total, 1_000_000 + t * 1000);
    return { done, eta, text: etaText(eta, done, total) };
  });
}

describe('indexing progress text', () => {
  test('a first index is "Indexing for the first time", not a rebuild for "no index yet"', () => {
    assert.deepEqual(indexingHeading('no index yet'), { title: 'Indexing for the first time', reason: null });
    assert.deepEqual(indexingHeading('chunking config changed (max_chunk_chars: 2000 → 400)'), { title: 'Rebuilding the index', reason: 'chunking config changed (max_chunk_chars: 2000 → 400)' });
    assert.deepEqual(indexingHeading(null), { title: 'Indexing', reason: null });
  });

  test('every phase counts notes, as the core does; saving shows no "0 / 1"', () => {
    assert.equal(phaseText('chunk', 120, 1200), 'Reading notes · 120 / 1,200 notes');
    assert.equal(phaseText('embed', 600, 1200), 'Embedding notes · 600 / 1,200 notes');
    assert.equal(phaseText('persist', 0, 1), 'Saving the index');
    assert.equal(phaseText('embed', 0, 1), 'Embedding notes · 0 / 1 note');
  });

  test('no estimate before 5% and 2 s; never "almost done" at 5%', () => {
    // A tiny first batch makes the raw estimate near zero early on: the old text said "almost done" here.
    const early = run(1000, [
      [0.2, 10, 0.3],
      [1.0, 40, 0.5],
      [2.5, 50, 0.8],
    ]);
    assert.equal(early[0].text, null);
    assert.equal(early[1].text, null);
    assert.notEqual(early[2].text, 'almost done');
    assert.match(early[2].text ?? '', /^about /);
  });

  test('the estimate follows a noisy raw estimate smoothly, counting down between reports', () => {
    // A steady 100 s run whose raw estimate swings by ±60%.
    const reports: Array<[number, number, number]> = [];
    for (let t = 5; t <= 90; t += 5) {
      const done = t * 10;
      const truth = 100 - t;
      reports.push([t, done, truth * (t % 10 === 0 ? 1.6 : 0.4)]);
    }
    const out = run(1000, reports);
    const raw = reports.map(([, , r]) => r);
    const smoothed = out.map((o) => o.eta.seconds!);
    let rawJump = 0;
    let smoothJump = 0;
    for (let i = 3; i < out.length; i++) {
      rawJump = Math.max(rawJump, Math.abs(raw[i] - raw[i - 1]));
      smoothJump = Math.max(smoothJump, Math.abs(smoothed[i] - smoothed[i - 1]));
    }
    assert.ok(smoothJump < rawJump / 2, `largest step: smoothed ${smoothJump.toFixed(1)} s, raw ${rawJump.toFixed(1)} s`);
    assert.ok(smoothed.at(-1)! < 40, `near the end the estimate is small: ${smoothed.at(-1)}`);
  });

  test('"almost done" only in the last 10%; the words are rounded', () => {
    assert.equal(etaText({ seconds: 3, at: 0, startedAt: 0, total: 100 }, 95, 100), 'almost done');
    assert.equal(etaText({ seconds: 3, at: 0, startedAt: 0, total: 100 }, 50, 100), 'about 5 s left');
    assert.equal(etaText({ seconds: 47, at: 0, startedAt: 0, total: 100 }, 50, 100), 'about 45 s left');
    assert.equal(etaText({ seconds: 127, at: 0, startedAt: 0, total: 100 }, 50, 100), 'about 2 min left');
    assert.equal(etaText({ seconds: 140, at: 0, startedAt: 0, total: 100 }, 50, 100), 'about 2 min 15 s left');
    assert.equal(formatDuration(60), '1 min');
  });

  test('a new run (another total) starts afresh', () => {
    let eta = nextEta(NO_ETA, 50, 500, 1000, 10_000);
    eta = nextEta(eta, 50, 600, 1000, 20_000);
    assert.notEqual(eta.seconds, null);
    eta = nextEta(eta, 5, 1, 30, 21_000);
    assert.equal(eta.seconds, null);
  });
});

describe('small display rules', () => {
  test('a one-line range reads "line 109"', () => {
    assert.equal(lineRange(109, 109), 'line 109');
    assert.equal(lineRange(109, 112), 'lines 109–112');
  });

  test('a model is named without its hub owner', () => {
    assert.equal(modelName('cairn-glove-100d'), 'cairn-glove-100d');
    assert.equal(modelName('Xenova/bge-small-en-v1.5'), 'bge-small-en-v1.5');
  });
});

describe('task lists and tables in the note view', () => {
  test('task list items become read-only checkboxes; "[ ]" elsewhere stays text', () => {
    const html = noteBodyHtml('- [ ] to do\n- [x] done\n- [X] also done\n- plain [ ] x\n\n1. [ ] numbered\n', 0);
    assert.match(html, /<ul class="contains-task-list"/);
    assert.match(html, /<li class="task-list-item"[^>]*><input type="checkbox" class="task-checkbox" disabled aria-label="to do"> to do<\/li>/);
    assert.match(html, /<li class="task-list-item done"[^>]*><input type="checkbox" class="task-checkbox" disabled checked aria-label="done"> done<\/li>/);
    assert.equal((html.match(/checked/g) ?? []).length, 2);
    assert.match(html, /<li[^>]*>plain \[ \] x<\/li>/);
    assert.match(html, /<ol class="contains-task-list"/);
    // Lines are still those of the file.
    assert.match(html, /<li class="task-list-item done" data-source-line="2" data-source-end="2">/);
  });

  test('wikilinks with an escaped alias bar in a table render without backslashes', () => {
    const html = noteBodyHtml('| a | b |\n| --- | --- |\n| [[Note A\\|alias]] | [[Note B#Part\\|b]] |\n', 0);
    assert.match(html, /data-wikilink="Note A" data-heading="">alias<\/a>/);
    assert.match(html, /data-wikilink="Note B" data-heading="Part">b<\/a>/);
    assert.doesNotMatch(html, /\\/);
  });
});
