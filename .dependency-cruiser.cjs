// The layers of DESIGN §2 / docs/architecture.md, checked in `npm test` (npm run lint:layers).
// Imports point down only; type-only and dynamic imports count; no cycle anywhere in src/.
// A layer may import any layer below it and its own layer; never one above.
const LAYERS = [
  // top: the package's entry points (`dossier`, `dossier/testing`), the surfaces, the facade, the
  // engine, down to the leaves
  { name: 'entries', paths: ['^src/(index|testing)\\.ts$'] },
  { name: 'surfaces', paths: ['^src/(cli|server|mcp|ui|web|eval|testing)/'] },
  { name: 'facade', paths: ['^src/dossier\\.ts$'] },
  { name: 'ask', paths: ['^src/ask/'] },
  { name: 'research', paths: ['^src/research/'] },
  { name: 'agent', paths: ['^src/agent/'] },
  { name: 'graph', paths: ['^src/graph/'] },
  { name: 'engine', paths: ['^src/(providers|retrieve|ingest|embed)/'] },
  { name: 'offline-model', paths: ['^src/offline-model/'] },
  { name: 'evidence', paths: ['^src/evidence/'] },
  { name: 'protocol', paths: ['^src/protocol/'] },
  { name: 'base', paths: ['^src/(store|config|errors|text)/', '^src/version\\.ts$', '^src/types\\.d\\.ts$'] },
];
const either = (paths) => paths.join('|');
const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `${layer.name}-imports-no-layer-above`,
  comment: `${layer.name} may not import ${LAYERS.slice(0, i + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: either(layer.paths), pathNot: '\\.test\\.ts$' },
  to: { path: either(LAYERS.slice(0, i + 1).flatMap((l) => l.paths)) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no import cycle, type-only and dynamic imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
    {
      name: 'offline-model-only-through-its-index',
      comment: 'nothing outside offline-model/ reaches into its internals: import offline-model/index.ts',
      severity: 'error',
      from: { path: '^(src|bench|scripts|test)/', pathNot: '^src/offline-model/' },
      to: { path: '^src/offline-model/', pathNot: '^src/offline-model/index\\.ts$' },
    },
    {
      name: 'client-imports-protocol-only',
      comment: 'dossier/client is browser-safe: it imports its own files and wire types only',
      severity: 'error',
      from: { path: '^src/client/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(client|protocol)/|^src/store/types\\.ts$' },
    },
    {
      name: 'store-and-engine-import-no-agent',
      comment: 'store/, retrieve/, embed/, ingest/ and providers/ import nothing from agent/, research/ or server/',
      severity: 'error',
      from: { path: '^src/(store|retrieve|embed|ingest|providers)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/(agent|research|server|ask)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
