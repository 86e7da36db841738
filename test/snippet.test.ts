// Result snippets, cut by the core (core/search/snippet.ts): readable text, and marked words that are the words the
// keyword index matches (its own tokenizer), with the window around the first match.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { highlightTerms } from '../core/search/highlightTerms.js';
import { buildSnippet, plainText } from '../core/search/snippet.js';

const marked = (markdown: string, query: string) => buildSnippet(markdown, highlightTerms(query)).filter((s) => s.match).map((s) => s.text);

describe('snippets', () => {
  it('a snippet of a table row with such wikilinks and task boxes reads cleanly', () => {
    const text = plainText('| Where | Note |\n| --- | --- |\n| harbour | [[Glossary\\|the glossary]] and [[Chunking#Sizes\\|sizes]] |\n- [ ] buy rope\n- [x] book ferry\n');
    assert.equal(text, 'Where · Note · harbour · the glossary and sizes · ☐ buy rope ☑ book ferry');
  });

  it('fenced code reads as its text: bars stay bars, fence lines and info strings go; a table beside it still reads as cells', () => {
    const text = plainText('Pipe the pages:\n\n```go-html-template\n{{ $p := where .Pages "Type" "news" | first 2 }}\n```\n\n~~~~sh\nls | sort\n~~~\n| still | code |\n~~~~\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n');
    assert.equal(text, 'Pipe the pages: {{ $p := where .Pages "Type" "news" | first 2 }} ls | sort ~~~ | still | code | · A · B · 1 · 2');
  });

  it('inline Markdown and HTML read as the page shows them, as answers render them; code stays as written', () => {
    const cases: Array<[string, string]> = [
      ['> [!warning]- Back up first\n> Copy the ==vault folder== before you ~~delete~~ move it.\n', 'Back up first Copy the vault folder before you delete move it.'],
      ['Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to copy.<!-- TODO: screenshot --> Then paste &ndash; done.\n', 'Press Ctrl + C to copy. Then paste – done.'],
      ['A claim[^1] with a source.\n\n[^1]: The source, a footnote.\n', 'A claim with a source. The source, a footnote.'],
      ['Markup:\n\n```html\n<div class="x">*not* emphasis</div>\n```\n', 'Markup: <div class="x">*not* emphasis</div>'],
    ];
    for (const [markdown, shown] of cases) assert.equal(plainText(markdown), shown);
  });

  it('reference links read as their text, and their definitions are left out', () => {
    const text = plainText('See [the first][first] and [the last][] of them, and ![a chart][c].\n\n[first]: https://example.com/first "First"\n  [the last]: <https://example.com/last>\n[c]: chart.png\n');
    assert.equal(text, 'See the first and the last of them, and a chart.');
  });

  it('marks whole words the query matches, by prefix as the keyword search completes, never question words', () => {
    assert.deepEqual(marked('## Chunking\nChunks are split by heading; this sets the chunk size.', 'how do I set the chunk size like this'), ['Chunks', 'sets', 'chunk', 'size']);
  });

  it('matches as the index tokenizes: accents folded, code-ish words by their parts', () => {
    assert.deepEqual(marked('Run Get-ChildItem in Köln; see max_chunk_chars.', 'childitem koln chunk'), ['Get-ChildItem', 'Köln', 'max_chunk_chars']);
  });

  it('marks CJK terms inside a run of text without spaces', () => {
    const segments = buildSnippet('全文検索の東京メモ', ['東京']);
    assert.deepEqual(segments, [
      { text: '全文検索の', match: false },
      { text: '東京', match: true },
      { text: 'メモ', match: false },
    ]);
  });

  it('starts the window shortly before the first match, with ellipses where text is left out', () => {
    const text = `${'filler words '.repeat(60)}the needle sits here ${'and more words '.repeat(40)}`;
    const segments = buildSnippet(text, ['needle']);
    const shown = segments.map((s) => s.text).join('');
    assert.ok(shown.startsWith('…') && shown.endsWith('…'), shown);
    assert.deepEqual(segments.filter((s) => s.match).map((s) => s.text), ['needle']);
    assert.equal(buildSnippet('plain words', []).map((s) => s.text).join(''), 'plain words');
  });
});
