import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FieldLengthTable } from '../core/indices/keyword/fieldLengthTable.js';

const FIELDS = 5;

describe('FieldLengthTable', () => {
  it('behaves as the Map MiniSearch keeps: rows set empty and filled in, read, deleted, listed by short id', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), doc: fc.nat(3000), row: fc.array(fc.nat(70_000), { minLength: FIELDS, maxLength: FIELDS }) }),
      fc.record({ kind: fc.constant('delete' as const), doc: fc.nat(3000) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const table = new FieldLengthTable(FIELDS);
        const reference = new Map<number, number[]>();
        for (const o of ops) {
          if (o.kind === 'add') {
            // As MiniSearch's addFieldLength: an empty array set, then filled in field by field.
            const row: number[] = [];
            table.set(o.doc, row);
            o.row.forEach((length, f) => (row[f] = length));
            assert.deepEqual(table.get(o.doc), o.row, 'the unsealed row reads as filled in');
            table.seal();
            reference.set(o.doc, o.row.map((length) => Math.min(length, 0xffff)));
          } else {
            assert.equal(table.delete(o.doc), reference.delete(o.doc));
          }
          assert.equal(table.size, reference.size);
        }
        const byDoc = [...reference].sort((a, b) => a[0] - b[0]);
        assert.deepEqual([...table], byDoc);
        assert.deepEqual([...table.keys()], byDoc.map(([doc]) => doc));
        for (const [doc, row] of reference) {
          assert.ok(table.has(doc));
          assert.deepEqual(table.get(doc), row);
          row.forEach((length, f) => assert.equal(table.lengthAt(doc, f), length));
          assert.equal(table.rowJson(doc), JSON.stringify(row), 'written as MiniSearch writes the row');
        }
        assert.equal(table.get(3001), undefined);
        assert.equal(table.lengthAt(10_000, 0), 0);
      }),
      { numRuns: 200 },
    );
  });
});
