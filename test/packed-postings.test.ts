// Packed postings (core/indices/keyword/packedPostings.ts) behave as the Map they replace in MiniSearch's term
// tree: the same entries after any sequence of sets and deletes, and iteration that stays sound while postings
// are deleted or added (the array grows under the iteration).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { PackedPostings } from '../core/indices/keyword/packedPostings.js';

const sorted = (map: Map<number, number>) => [...map].sort((a, b) => a[0] - b[0]);

const opArb = fc.oneof(
  // Mostly rising ids, as MiniSearch gives them; some below the last, and some of those already held.
  fc.record({ kind: fc.constant('set' as const), doc: fc.integer({ min: 0, max: 60 }), frequency: fc.integer({ min: 1, max: 70_000 }) }),
  fc.record({ kind: fc.constant('append' as const), step: fc.integer({ min: 1, max: 5 }), frequency: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('delete' as const), doc: fc.integer({ min: 0, max: 60 }) }),
);

type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

function play(ops: Op[]): [PackedPostings, Map<number, number>] {
  const packed = new PackedPostings();
  const model = new Map<number, number>();
  let top = 0;
  for (const op of ops) {
    if (op.kind === 'delete') assert.equal(packed.delete(op.doc), model.delete(op.doc));
    else {
      const doc = op.kind === 'append' ? (top += op.step) : op.doc;
      top = Math.max(top, doc);
      packed.set(doc, op.frequency);
      model.set(doc, op.frequency);
    }
  }
  return [packed, model];
}

describe('packed postings', () => {
  test('hold what a Map holds after any sets and deletes, ids ascending', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), fc.integer({ min: 0, max: 310 }), (ops, probe) => {
        const [packed, model] = play(ops);
        assert.equal(packed.size, model.size);
        assert.deepEqual([...packed], sorted(model));
        assert.deepEqual([...packed.keys()], sorted(model).map(([doc]) => doc));
        assert.deepEqual([...packed.values()], sorted(model).map(([, frequency]) => frequency));
        const each: Array<[number, number]> = [];
        packed.forEach((frequency, doc) => each.push([doc, frequency]));
        assert.deepEqual(each, sorted(model));
        const unchanging: Array<[number, number]> = [];
        packed.forEachUnchanging((frequency, doc) => unchanging.push([doc, frequency]));
        assert.deepEqual(unchanging, sorted(model), 'the scorer loop skips tombstones and keeps id order');
        assert.equal(packed.get(probe), model.get(probe));
        assert.equal(packed.has(probe), model.has(probe));
        assert.deepEqual([...PackedPostings.from(model)], sorted(model));
      }),
      { numRuns: 300 },
    );
  });

  test('an iteration that deletes and adds as it goes gives each live posting once, in id order', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 200 }),
        fc.array(fc.record({ remove: fc.integer({ min: 0, max: 300 }), grow: fc.integer({ min: 0, max: 40 }) }), { maxLength: 60 }),
        fc.boolean(),
        (ops, changes, useForEach) => {
          const [packed, model] = play(ops);
          const before = new Set(model.keys());
          const removed = new Set<number>();
          const seen: number[] = [];
          let top = Math.max(0, ...model.keys());
          let step = 0;
          const visit = (doc: number, frequency: number) => {
            assert.ok(!removed.has(doc), `${doc} was deleted before it was reached`);
            assert.equal(frequency, model.get(doc));
            seen.push(doc);
            const change = changes[step++];
            if (!change) return;
            // Deletes here and there (reached or not), and appends enough to make the array grow.
            if (packed.delete(change.remove)) (removed.add(change.remove), model.delete(change.remove));
            for (let i = 0; i < change.grow; i++) (packed.set(++top, 1), model.set(top, 1));
          };
          if (useForEach) packed.forEach((frequency, doc) => visit(doc, frequency));
          else for (const [doc, frequency] of packed) visit(doc, frequency);
          assert.ok(seen.every((doc, i) => i === 0 || doc > seen[i - 1]!), 'in id order, none twice');
          for (const doc of before) if (!removed.has(doc)) assert.ok(seen.includes(doc), `${doc}, live throughout, was not reached`);
          assert.deepEqual([...packed], sorted(model));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('dropping dead chunks keeps exactly the live postings, in id order, and says whether any went', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), fc.array(fc.boolean(), { maxLength: 320 }), (ops, flags) => {
        const [packed, model] = play(ops);
        const live = Uint8Array.from(flags, (flag) => (flag ? 1 : 0)); // ids past its end are dead
        const kept = sorted(model).filter(([doc]) => live[doc] === 1);
        assert.equal(packed.dropDead(live), kept.length < model.size);
        assert.equal(packed.size, kept.length);
        assert.deepEqual([...packed], kept);
        packed.set(1000, 2);
        assert.deepEqual([...packed], [...kept, [1000, 2]], 'it grows on as before');
      }),
      { numRuns: 300 },
    );
  });

  test('refuses a frequency that is not a positive integer', () => {
    const packed = new PackedPostings();
    assert.throws(() => packed.set(1, 0), RangeError);
    assert.throws(() => packed.set(1, 1.5), RangeError);
    assert.equal(packed.size, 0);
  });
});
