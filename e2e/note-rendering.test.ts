// The note view's Markdown pipeline (renderer/src/markdown/noteHtml.ts) on outline notes, without a browser: what
// Logseq syntax becomes, and that source lines stay those of the file. (Sanitising needs a DOM: app and hostile-note
// tests cover it.) Here rather than in test/ because the renderer's sources import with .ts extensions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BlockRefView } from '../core/contract/appApi.ts';
import { outlineInfo } from '../core/app/noteOutline.ts';
import { noteBodyHtml } from '../renderer/src/markdown/noteHtml.ts';

const REF = '6565a1b2-0000-4000-8000-0000000000b2';
const OWN = '6565a1b2-0000-4000-8000-0000000000a1';
const MISSING = '6565a1b2-0000-4000-8000-0000000000ff';

function render(text: string, blockRefs: Record<string, BlockRefView> = {}, bodyStart = 0): string {
  const lineOffset = text.slice(0, bodyStart).split('\n').length - 1;
  return noteBodyHtml(text.slice(bodyStart), lineOffset, { outline: outlineInfo(text, bodyStart), blockRefs });
}

/** The text a reader sees (tags dropped; code kept). */
function visible(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

describe('outline notes in the note view', () => {
  test('nested bullets (tabs or two spaces), heading blocks, and no property line shown', () => {
    const text = `title:: Glacier\ntype:: [[Guide]]\n\n- ## Usage\n  id:: ${OWN}\n  collapsed:: true\n\t- child one\n\t  second line\n\t\t- grandchild\n  - spaced child\n- Plain heading block\n  heading:: true\n`;
    const html = render(text);
    assert.doesNotMatch(visible(html), /::/);
    assert.match(html, new RegExp(`<li data-block-id="${OWN}" data-source-line="4" data-source-end="10">\\s*<h2 data-source-line="4" data-source-end="4">Usage</h2>`));
    assert.match(html, /<li data-source-line="9" data-source-end="9">\s*<p data-source-line="9" data-source-end="9">grandchild<\/p>/);
    assert.match(html, /<p data-source-line="7" data-source-end="8">child one\nsecond line<\/p>/);
    assert.match(html, /<li data-source-line="10" data-source-end="10">\s*<p[^>]*>spaced child<\/p>/);
    assert.match(html, /<h2 data-source-line="11" data-source-end="11">Plain heading block<\/h2>/);
    const info = outlineInfo(text, 0);
    assert.deepEqual(info.pageProperties, [['title', 'Glacier'], ['type', 'Guide']]);
    assert.equal(info.isOutline, true);
  });

  test('a first block of properties only is the page properties, not an empty bullet', () => {
    const text = `- title:: Pumps\n  tags:: ice\n- First real block\n`;
    const html = render(text);
    assert.deepEqual(outlineInfo(text, 0).pageProperties, [['title', 'Pumps'], ['tags', 'ice']]);
    assert.equal((html.match(/<li/g) ?? []).length, 1);
    assert.doesNotMatch(visible(html), /::/);
  });

  test('a properties-only block keeps its children', () => {
    const html = render(`- A\n\t- type:: [[Command]]\n\t  name:: Deadline\n\t\t- eg: finish\n\t- next\n`);
    assert.match(html, /<li data-source-line="4" data-source-end="4">\s*<p[^>]*>eg: finish<\/p>/);
    assert.doesNotMatch(visible(html), /::|- eg/);
  });

  test('block references read as their blocks, link to them, and a missing one says so', () => {
    const refs = { [REF]: { path: 'pages/Pump manual.md', text: 'Close the **valve** before [[Servicing]]', line: 4 }, [OWN]: { path: 'pages/Here.md', text: 'Usage', line: 1 } };
    const html = render(`- ## Usage\n  id:: ${OWN}\n- See ((${REF})), ((${MISSING})) and [the start](((${OWN})))\n- {{embed ((${REF}))}}\n`, refs);
    assert.match(html, new RegExp(`<a href="#" class="block-ref" data-block-ref="${REF}" data-block-path="pages/Pump manual.md"[^>]*>Close the valve before Servicing</a>`));
    assert.match(html, /<span class="block-ref missing"[^>]*>missing block<\/span>/);
    assert.match(html, new RegExp(`data-block-ref="${OWN}" data-block-path="pages/Here.md"[^>]*>the start</a>`));
    assert.match(html, /<span class="block-embed">.*Close the valve before Servicing<\/a><\/span>/);
    assert.doesNotMatch(visible(html), /[0-9a-f]{8}-[0-9a-f]{4}-/);
    assert.doesNotMatch(visible(html), /\(\(|\{\{/);
  });

  test('references in inline code stay code', () => {
    const html = render(`- Write \`((${REF}))\` to reference a block\n`);
    assert.match(html, new RegExp(`<code>\\(\\(${REF}\\)\\)</code>`));
  });

  test('macros are labels; page embeds are embed links; #+BEGIN regions are code or boxes', () => {
    const html = render(`- Open: {{query (and [[a]] (task TODO))}} {{renderer :todo, {:x 1}}}\n- {{embed [[Other page]]}}\n- #+BEGIN_QUERY\n  {:title "x" :query [:find ?b]}\n  #+END_QUERY\n- #+BEGIN_SRC clojure\n  (+ 1 2)\n  #+END_SRC\n- #+BEGIN_NOTE\n  a **note**\n  #+END_NOTE\n`);
    assert.match(html, /<span class="logseq-macro" data-macro="query"[^>]*>query<\/span>/);
    assert.match(html, /<span class="logseq-macro" data-macro="renderer"[^>]*>renderer<\/span><\/p>/);
    assert.match(html, /<a href="#" class="wikilink embed" data-wikilink="Other page"/);
    assert.match(html, /<div class="block-fence" data-source-line="3" data-source-end="5"><pre><code class="language-query">\{:title &quot;x&quot; :query \[:find \?b\]\}\n<\/code><\/pre>/);
    assert.match(html, /<code class="language-clojure">\(\+ 1 2\)\n<\/code>/);
    assert.match(html, /<div class="logseq-box logseq-box-note" data-kind="note" data-source-line="9" data-source-end="11">\s*<p[^>]*>a <strong>note<\/strong><\/p>/);
    assert.doesNotMatch(visible(html.replace(/<pre>[\s\S]*?<\/pre>/g, '')), /#\+|\{\{/);
  });

  test('blocks indented under a heading line (as Logseq writes them) are a list, lines unchanged', () => {
    const text = `## Beta 0.10\nid:: ${OWN}\nDownload it here.\n\t- [[Fixed issues]]\n\t\t- a fix\n## Next\n`;
    const html = render(text);
    assert.doesNotMatch(visible(html), /::/);
    assert.match(html, /<ul data-source-line="4" data-source-end="5">\s*<li data-source-line="4" data-source-end="5">/);
    assert.match(html, /<li data-source-line="5" data-source-end="5">\s*<p[^>]*>a fix<\/p>/);
    assert.doesNotMatch(html, /<pre>/);
  });

  test('front matter before the outline: lines counted in the file', () => {
    const text = `---\ntitle: Fm\n---\n- first\n  id:: ${OWN}\n- second\n`;
    const html = render(text, {}, text.indexOf('- first'));
    assert.match(html, new RegExp(`<li data-block-id="${OWN}" data-source-line="4" data-source-end="5">`));
    assert.match(html, /<li data-source-line="6" data-source-end="6">/);
  });

  test('ordinary Markdown notes are unchanged: indented code stays code, blank lines are not counted in a block', () => {
    const html = render(`# Title\n\nSome prose.\n\n    indented code\n\n- a list\n\n\n## Next\n`);
    assert.match(html, /<div class="block-code_block" data-source-line="5" data-source-end="5"><pre><code>indented code/);
    assert.match(html, /<ul data-source-line="7" data-source-end="7">/);
    assert.equal(outlineInfo(`# Title\n\nSome prose.\n\n- a list\n`, 0).isOutline, false);
  });
});
