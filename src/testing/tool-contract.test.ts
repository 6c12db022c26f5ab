import { join } from 'node:path';
import { regressionIndex } from '../../test/helpers.ts';
import { toolContract } from './tool-contract.ts';
import { getContent } from '../agent/tools/get-content.ts';
import { loadUserTools } from '../agent/tools/registry.ts';
import { searchDescriptions } from '../agent/tools/search-descriptions.ts';
import { searchGraph } from '../agent/tools/search-graph.ts';
import { searchKnowledge } from '../agent/tools/search-knowledge.ts';

const NO_SUCH_DOCUMENT = 999_999;

toolContract('search_knowledge', () => searchKnowledge, {
  dossier: regressionIndex,
  validInput: { query: 'Tern-4 salinity sensor' },
  invalidInputs: [{}, { query: '' }, { query: 'x', k: 0 }, { query: 'x', strategy: 'psychic' }],
  hostileInput: { query: 'Zephyrine falcon survey nesting pairs' },
  showsRetrievedText: true,
  // Strategies that need a model fail without one.
  failingInput: { query: 'Tern-4', strategy: 'hyde' },
});

toolContract('search_descriptions', () => searchDescriptions, {
  dossier: regressionIndex,
  validInput: { query: 'travel policy meal allowance' },
  invalidInputs: [{}, { query: '' }, { query: 'x', k: 21 }],
  hostileInput: { query: 'Zephyrine falcon survey nesting pairs' },
  showsRetrievedText: true,
});

toolContract('search_graph', () => searchGraph, {
  // The regression corpus with its knowledge graph (the planted document joins it at ingest).
  dossier: async () => {
    const index = await regressionIndex();
    await index.dossier.graph.build();
    return index;
  },
  validInput: { query: 'Tern-4 sea trial' },
  invalidInputs: [{}, { query: '' }, { query: 'x', k: 0 }],
  hostileInput: { query: 'Zephyrine falcon survey' },
  showsRetrievedText: true,
});

toolContract('get_content', () => getContent, {
  dossier: regressionIndex,
  validInput: (planted: { documentId: number }) => ({ documentId: planted.documentId }),
  invalidInputs: [{}, { documentId: 0 }, { documentId: 1.5 }, { documentId: 1, fromChunk: -1 }],
  hostileInput: (planted: { documentId: number }) => ({ documentId: planted.documentId }),
  showsRetrievedText: true,
  failingInput: { documentId: NO_SUCH_DOCUMENT },
});

toolContract(
  'user tool word_count (test/fixtures/user-tools)',
  async () => (await loadUserTools(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'user-tools')))[0],
  {
    dossier: regressionIndex,
    validInput: { text: 'one two three' },
    invalidInputs: [{}, { text: 3 }],
    hostileInput: (planted: { text: string }) => ({ text: planted.text }),
  },
);
