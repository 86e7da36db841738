// The layering rules of Cairn, checked by `npm run check:deps` (dependency-cruiser). Every rule is an error: a rule
// that only warns is a rule nobody keeps. Type-only imports count (tsPreCompilationDeps), because a type import is
// still knowledge of the module it names.

/**
 * core/'s layers, lowest first: a module may import its own layer and the layers before it, never one after it.
 * Peers in one entry know nothing of each other's order. The order follows the data: text is parsed before it is
 * chunked, chunks are embedded before they are indexed, indices are searched, results answered. `server` sits under
 * `app` because it is a transport over the CairnApi contract that app wires up (cli/ may only reach it through app).
 */
const CORE_LAYERS = [
  ['contract'],
  ['random', 'process'],
  ['config'],
  ['parse'],
  ['vault'],
  ['chunking'],
  ['embedding'],
  ['indices'],
  ['indexing'],
  ['search'],
  ['answer'],
  ['adapt'],
  ['live'],
  ['server'],
  ['app'],
];

const folders = (layers) => `^core/(${layers.flat().join('|')})/`;

const upwardImportRules = CORE_LAYERS.slice(0, -1).map((layer, index) => ({
  name: 'core-no-upward-import',
  severity: 'error',
  comment: `core/${layer.join(', core/')} may not import a later layer (${CORE_LAYERS.slice(index + 1).flat().join(' < ')})`,
  from: { path: folders([layer]) },
  to: { path: folders(CORE_LAYERS.slice(index + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-not-to-shells',
      severity: 'error',
      comment: 'core/ is plain Node: it never imports the shells (electron/, renderer/, cli/) or their UI and build packages',
      from: { path: '^core/' },
      to: { path: ['^(electron|renderer|cli)/', '^node_modules/(electron|react|react-dom|vite|@vitejs)/'] },
    },
    {
      name: 'core-folder-has-a-layer',
      severity: 'error',
      comment: 'every core module lives in a layer folder listed in CORE_LAYERS (no loose files in core/, no unranked folders)',
      from: { path: '^core/', pathNot: folders(CORE_LAYERS) },
      to: { path: '^core/' },
    },
    {
      name: 'contract-imports-only-contract',
      severity: 'error',
      comment: 'core/contract/ is what every transport and the renderer share: it imports nothing else from core',
      from: { path: '^core/contract/' },
      to: { path: '^core/', pathNot: '^core/contract/' },
    },
    {
      name: 'contract-no-node-builtins',
      severity: 'error',
      comment: 'core/contract/ is bundled into the renderer, which runs in a browser',
      from: { path: '^core/contract/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'shells-use-the-front-door',
      severity: 'error',
      comment: 'cli/ and electron/ reach core only through core/app/index.ts and core/contract/',
      from: { path: '^(cli|electron)/' },
      to: { path: '^core/', pathNot: ['^core/app/index\\.ts$', '^core/contract/'] },
    },
    {
      name: 'renderer-uses-only-the-contract',
      severity: 'error',
      comment: 'the renderer talks to the core over the CairnApi only; from core it imports only core/contract/',
      from: { path: '^renderer/' },
      to: { path: '^core/', pathNot: '^core/contract/' },
    },
    ...upwardImportRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import cycle means two modules that cannot be understood (or moved) one without the other',
      from: { path: '^(core|cli|electron|renderer)/' },
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|\\.dist[^/]*)/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
