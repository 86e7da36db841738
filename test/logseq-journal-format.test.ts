// A Logseq graph names its journal files by its own `:journal/file-name-format` (logseq/config.edn): journal pages
// take their day from it, a format Cairn cannot read is reported (the default applies), and changing it re-indexes.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { indexedNotesVault } from './support/notesVault.js';

const CONFIG = (format: string) => `{:meta/version 1\n ;; :journal/file-name-format "yyyy_MM_dd"\n :journal/file-name-format "${format}"\n :feature/enable-journals? true}\n`;

test('journal pages are dated by the graph\'s file-name format', async () => {
  const { vault, remove } = await indexedNotesVault('cairn-journal-format-', {
    'logseq/config.edn': CONFIG('yyyy-MM-dd'),
    'journals/2024-01-15.md': '- Planted the garlic\n- Ordered seeds\n',
    'journals/2024_01_16.md': '- Underscores are not this graph\'s format\n',
  });
  let reopened: CairnVault | undefined;
  try {
    assert.equal(vault.noteInfo('journals/2024-01-15.md')?.record.date, '2024-01-15');
    assert.equal(vault.noteInfo('journals/2024-01-15.md')?.record.title, 'Jan 15th, 2024');
    assert.equal(vault.noteInfo('journals/2024_01_16.md')?.record.date, undefined);
    const listed = await vault.search({ query: 'after:2024-01-15 before:2024-01-16' });
    assert.deepEqual(listed.results.map((r) => r.path), ['journals/2024-01-15.md']);

    // Back to the default format: the index no longer matches and is rebuilt with the new days.
    await writeFile(path.join(vault.vaultPath, 'logseq', 'config.edn'), CONFIG('yyyy_MM_dd'));
    reopened = await CairnVault.open(vault.config);
    assert.match(reopened.status().pendingRebuild ?? '', /journal file-name format changed \(yyyy-MM-dd → yyyy_MM_dd\)/);
    await reopened.index();
    assert.equal(reopened.noteInfo('journals/2024_01_16.md')?.record.date, '2024-01-16');
    assert.equal(reopened.noteInfo('journals/2024-01-15.md')?.record.date, undefined);

    // A format with tokens Cairn does not read is reported; the default applies.
    await writeFile(path.join(vault.vaultPath, 'logseq', 'config.edn'), CONFIG('MMM do, yyyy'));
    await reopened.close();
    reopened = await CairnVault.open(vault.config);
    assert.match(reopened.status().warnings?.join('\n') ?? '', /"MMM do, yyyy" is not one Cairn reads/);
    assert.equal(reopened.status().pendingRebuild, undefined, 'the default format is the one in force');
  } finally {
    await reopened?.close();
    await remove();
  }
});
