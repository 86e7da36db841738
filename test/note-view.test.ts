// The note view the core sends the renderer (core/app/noteView.ts): properties, outline and link targets resolved
// by the core, as plain JSON, so the renderer parses nothing but Markdown.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CairnVault } from '../core/app/index.js';
import { noteView } from '../core/app/noteView.js';
import { indexedNotesVault } from './support/notesVault.js';

const UUID = '6565a1b2-0000-4000-8000-0000000000a1';

describe('the note view', () => {
  let vault: CairnVault;
  let remove: () => Promise<void>;
  before(async () => {
    ({ vault, remove } = await indexedNotesVault('cairn-note-view-', {
      'Home.md': '---\ntitle: Home page\ntags: [a, b]\n---\n# Home\n\nSee [[Other]], ![[Other#Part]], [[Nowhere]], [[#Home]] and [the other](Folder/Other.md).\n',
      'Folder/Other.md': '# Other\n\n## Part\n\nText.\n',
      'Bad.md': '---\ntitle: [unclosed\n---\nBody.\n',
      'Outline.md': `type:: [[Guide]]\n\n- ## Usage\n  id:: ${UUID}\n\t- child\n- Plain heading block\n  heading:: true\n`,
    }));
  });
  after(() => remove());

  it('carries the front matter as properties and every link target resolved', async () => {
    const note = await noteView(vault, 'Home.md');
    assert.deepEqual(note.properties, { ok: true, entries: [['title', 'Home page'], ['tags', 'a, b']] });
    assert.deepEqual(note.links, { Other: 'Folder/Other.md', Nowhere: null, 'Folder/Other.md': 'Folder/Other.md' });
    assert.equal(note.outline.isOutline, false);
  });

  it('gives front matter that cannot be read back raw', async () => {
    assert.deepEqual((await noteView(vault, 'Bad.md')).properties, { ok: false, raw: 'title: [unclosed' });
  });

  it('carries an outline as plain JSON: property lines, blocks by line, page properties', async () => {
    const note = await noteView(vault, 'Outline.md');
    assert.deepEqual(JSON.parse(JSON.stringify(note.outline)), note.outline);
    assert.equal(note.outline.isOutline, true);
    assert.deepEqual(note.outline.pageProperties, [['type', 'Guide']]);
    assert.deepEqual(note.properties, { ok: true, entries: [['type', 'Guide']] });
    assert.deepEqual(note.outline.blocks[3], { uuid: UUID });
    assert.deepEqual(note.outline.blocks[6], { headingLevel: 2 });
    assert.ok(note.outline.propertyLines.includes(1) && note.outline.propertyLines.includes(4) && note.outline.propertyLines.includes(7));
  });
});
