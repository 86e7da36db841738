// The layering rules in .dependency-cruiser.cjs catch what they promise: each planted violation in a small temporary
// tree fails with its rule's name, and the same tree without it passes. Runs dependency-cruiser's own API with the
// repo's rule config and tsconfig, as `npm run check:deps` does.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const REPO = path.resolve(import.meta.dirname, '..');
/** The folders `npm run check:deps` cruises. */
const CHECKED = ['core', 'cli', 'electron', 'renderer/src'];

/** A tree that keeps every rule: contract at the bottom, app as the front door, shells on top. */
const CLEAN_TREE: Record<string, string> = {
  'core/contract/api.ts': 'export interface Hit { path: string }\n',
  'core/parse/links.ts': "import type { Hit } from '../contract/api.js';\nexport const links = (hit: Hit) => [hit.path];\n",
  'core/search/query.ts': "import { links } from '../parse/links.js';\nexport const search = () => links({ path: 'a.md' });\n",
  'core/app/index.ts': "export { search } from '../search/query.js';\nexport type { Hit } from '../contract/api.js';\n",
  'cli/main.ts': "import { search } from '../core/app/index.js';\nimport type { Hit } from '../core/contract/api.js';\nexport const hits: Hit[] = search().map((p) => ({ path: p }));\n",
  'electron/main.ts': "import { search } from '../core/app/index.js';\nsearch();\n",
  'renderer/src/App.tsx': "import type { Hit } from '../../core/contract/api.ts';\nexport const App = (hit: Hit) => hit.path;\n",
};

let options: ICruiseOptions;
let tsConfig: ReturnType<typeof extractTSConfig>;
const roots: string[] = [];

before(async () => {
  options = await extractDepcruiseOptions(path.join(REPO, '.dependency-cruiser.cjs'));
  tsConfig = extractTSConfig(path.join(REPO, 'tsconfig.json'));
});
after(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

/** The names of the rules `files` (added to the clean tree) breaks, one per violation. */
async function brokenRules(files: Record<string, string>): Promise<string[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-deprules-'));
  roots.push(root);
  for (const [file, text] of Object.entries({ ...CLEAN_TREE, ...files })) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  const { output } = await cruise(CHECKED, { ...options, baseDir: root }, undefined, { tsConfig });
  const result = output as ICruiseResult;
  assert.equal(result.summary.totalCruised >= Object.keys(CLEAN_TREE).length, true, 'the tree was cruised');
  return result.summary.violations.map((violation) => violation.rule.name);
}

describe('the dependency rules (.dependency-cruiser.cjs)', { timeout: 60_000 }, () => {
  it('pass a tree that keeps the layers', async () => {
    assert.deepEqual(await brokenRules({}), []);
  });

  it('fail core/contract importing the rest of core, even for a type', async () => {
    const rules = await brokenRules({ 'core/contract/x.ts': "import type { search } from '../search/query.js';\nexport type Search = typeof search;\n" });
    assert.ok(rules.includes('contract-imports-only-contract'), rules.join());
  });

  it('fail cli/ importing core internals instead of the front door', async () => {
    const rules = await brokenRules({
      'core/indices/b.ts': 'export const b = 1;\n',
      'cli/a.ts': "import { b } from '../core/indices/b.js';\nexport const a = b;\n",
    });
    assert.deepEqual(rules, ['shells-use-the-front-door']);
  });

  it('fail the renderer importing core outside core/contract', async () => {
    const rules = await brokenRules({ 'renderer/src/outline.ts': "import { links } from '../../core/parse/links.ts';\nexport const outline = links;\n" });
    assert.deepEqual(rules, ['renderer-uses-only-the-contract']);
  });

  it('fail an import cycle', async () => {
    const rules = await brokenRules({
      'core/search/one.ts': "import { two } from './two.js';\nexport const one = () => two;\n",
      'core/search/two.ts': "import { one } from './one.js';\nexport const two = () => one;\n",
    });
    assert.ok(rules.length > 0 && rules.every((rule) => rule === 'no-circular'), rules.join());
  });

  it('fail an upward import inside core (parse importing search)', async () => {
    const rules = await brokenRules({ 'core/parse/tags.ts': "import { search } from '../search/query.js';\nexport const tags = search;\n" });
    assert.deepEqual(rules, ['core-no-upward-import']);
  });

  it('fail core importing a shell or a UI package', async () => {
    const rules = await brokenRules({ 'core/search/ui.ts': "import { App } from '../../renderer/src/App.tsx';\nexport const ui = App;\n" });
    assert.ok(rules.includes('core-not-to-shells'), rules.join());
  });

  it('fail a core module outside the layer folders', async () => {
    const rules = await brokenRules({ 'core/loose.ts': "import { search } from './search/query.js';\nexport const loose = search;\n" });
    assert.deepEqual(rules, ['core-folder-has-a-layer']);
  });
});
