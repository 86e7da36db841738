// A vault the app replaces (after a rebuild, or with a newly adapted table) is closed while searches and answers
// that began on it may still be under way: they finish with its results, and close() waits for them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerQuestion } from '../core/answer/index.js';
import { indexedNotesVault } from './support/notesVault.js';

const NOTES: Record<string, string> = {
  'Boat/Pumps.md': '# Pumps\n\n## Priming\n\nThe bilge pump needs priming with a cup of water every spring before the boat goes in.\n',
  'Boat/Sails.md': '# Sails\n\n## Reefing\n\nThe mainsail reefing points are marked in red; tie the first reef when the wind passes force five.\n',
  'Garden/Beds.md': '# Beds\n\n## Tomatoes\n\nTomato seedlings go out after the last frost, staked and watered at the root.\n',
};

describe('closing a vault with work under way', { timeout: 120_000 }, () => {
  it('a search and an answer begun just before close() get their results; later ones are refused', async () => {
    const { vault, remove } = await indexedNotesVault('cairn-vault-close-', NOTES);
    try {
      const searching = vault.search({ query: 'when does the bilge pump need priming', mode: 'hybrid', k: 3 });
      const asking = vault.use(() => answerQuestion(vault, 'How do I prime the bilge pump?', { mode: 'extractive' }));
      const closing = vault.close();
      const { results } = await searching;
      assert.equal(results[0]?.path, 'Boat/Pumps.md');
      const answer = await asking;
      assert.ok(answer.confident, answer.answer);
      assert.equal(answer.citations[0]?.path, 'Boat/Pumps.md');
      await closing;
      await assert.rejects(vault.search({ query: 'reefing', mode: 'hybrid' }), /closed/);
    } finally {
      await remove();
    }
  });
});
