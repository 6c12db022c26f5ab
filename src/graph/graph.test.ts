import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphChunk, graphExtractorContract } from './contract.ts';
import { EntityGraph } from './entity-graph.ts';
import { createOfflineGraphExtractor } from './offline-extractor.ts';
import { personalizedPageRank, sparseGraph } from './ppr.ts';
import { entityKey, resolveEntities } from './resolve.ts';
import type { GraphChunk } from './types.ts';

graphExtractorContract('offline', async () => createOfflineGraphExtractor());

const chunk = graphChunk;

describe('offline graph extraction', () => {
  const extract = (chunks: GraphChunk[]) => createOfflineGraphExtractor().extract(chunks);

  it('types names by how they are written: headings, options, variables, identifiers in prose and code', async () => {
    const { entities } = await extract([
      chunk(
        1,
        'Usage',
        'Pass `--skip-magic` or set KESTREL_HOME.\n\n```python\nfrom kestrel.render import Renderer\nclass Page(Renderer):\n    pass\n```',
        ['Usage', '--preview'],
      ),
    ]);
    const typeOf = (name: string) => entities.find((e) => e.name === name)?.type;
    assert.equal(typeOf('Usage'), 'title');
    assert.equal(typeOf('--preview'), 'option');
    assert.equal(typeOf('--skip-magic'), 'option');
    assert.equal(typeOf('KESTREL_HOME'), 'variable');
    assert.equal(typeOf('kestrel.render'), 'code');
    assert.equal(typeOf('Renderer'), 'code');
    assert.equal(typeOf('Page'), 'code');
  });

  it('reads a relation from the few words joining two names, and an alias from "also known as"', async () => {
    const { relationships } = await extract([
      chunk(1, 'Ospreys', 'Arne Vik founded Vik Optics in Tromsø. The Northern Lights Observatory, also known as Nordlys, opened later.'),
    ]);
    const has = (source: string, predicate: string, target: string) =>
      relationships.some((r) => r.source === source && r.predicate === predicate && r.target === target);
    assert.ok(has('Arne Vik', 'founded', 'Vik Optics'), JSON.stringify(relationships));
    assert.ok(has('Northern Lights Observatory', 'alias', 'Nordlys'));
    assert.ok(has('Arne Vik', 'co-occurs', 'Tromsø'));
    // Names of different sentences do not co-occur.
    assert.ok(!relationships.some((r) => r.source === 'Arne Vik' && r.target === 'Nordlys'));
  });
});

describe('entity resolution', () => {
  it('keys ignore case, accents, a leading "the", a disambiguation and call parentheses; options keep their dashes', () => {
    assert.equal(entityKey('The Beatles'), entityKey('beatles'));
    assert.equal(entityKey('Winner (band)'), 'winner');
    assert.equal(entityKey('Zoë Keating'), 'zoe keating');
    assert.equal(entityKey('Settings()'), 'settings');
    assert.equal(entityKey('--line-length'), '--line length');
  });

  it('merges variants, an acronym with the name it abbreviates, and aliases; keeps every variant', async () => {
    const { entities, relationships } = await createOfflineGraphExtractor().extract([
      chunk(1, 'Northern Lights Observatory', 'The Northern Lights Observatory (NLO) stands near Tromsø. Arne Vik directs the NLO.'),
      chunk(2, 'Arne Vik', 'Arne Vik studied in Bergen. The northern lights observatory hired him.'),
    ]);
    const graph = resolveEntities(entities, relationships);
    const observatory = graph.entities.filter((e) => e.key === 'northern lights observatory');
    assert.equal(observatory.length, 1);
    assert.deepEqual(
      new Set(observatory[0].variants),
      new Set(['Northern Lights Observatory', 'NLO', 'northern lights observatory'].filter((v) => entities.some((e) => e.name === v))),
    );
    assert.ok(observatory[0].variants.includes('NLO'));
    assert.equal(observatory[0].type, 'title');
    assert.ok(!graph.entities.some((e) => e.key === 'nlo'), 'the acronym is no entity of its own');
    assert.ok(graph.relationships.every((r) => r.source !== r.target));
    assert.ok(graph.relationships.some((r) => r.source === 'arne vik' && r.target === 'northern lights observatory'));
  });
});

describe('entity resolution keeps descriptions', () => {
  it('a merged entity takes the fullest description of its variants; none given, none kept', () => {
    const mention = { chunkId: 1, field: 'text' as const, start: 0, end: 4 };
    const graph = resolveEntities(
      [
        { name: 'Vik Optics', type: 'name', mentions: [mention], description: 'A lens maker.' },
        { name: 'vik optics', type: 'name', mentions: [mention], description: 'A lens maker in Tromsø since 1990.' },
        { name: 'Rindal', type: 'name', mentions: [mention] },
      ],
      [],
    );
    assert.equal(graph.entities.find((e) => e.key === 'vik optics')?.description, 'A lens maker in Tromsø since 1990.');
    assert.ok(!('description' in (graph.entities.find((e) => e.key === 'rindal') ?? {})));
  });
});

describe('Personalized PageRank', () => {
  it('sums to one, favours the seed and its neighbourhood, and gives nothing without seeds', () => {
    // 0 - 1 - 2 - 3, and 4 alone
    const graph = sparseGraph(5, [
      [0, 1, 1],
      [1, 2, 1],
      [2, 3, 1],
    ]);
    const rank = personalizedPageRank(graph, new Map([[0, 1]]));
    const at = (node: number) => rank.get(node) ?? 0;
    assert.ok(Math.abs([...rank.values()].reduce((a, b) => a + b, 0) - 1) < 1e-4, 'all but the residual left unpushed');
    assert.ok(at(0) > at(1) && at(1) > at(2) && at(2) > at(3));
    assert.equal(at(4), 0, 'an unconnected node gets nothing');
    assert.equal(personalizedPageRank(graph, new Map()).size, 0);
  });
});

describe('graph search: multi-hop through a bridge entity', () => {
  it('ranks the passage two hops away, which shares no word with the question, above unrelated ones', async () => {
    const chunks = [
      chunk(1, 'Skua Lake', 'Skua Lake lies in the Vestby district. It is fed by the Grå River.'),
      chunk(2, 'Vestby', 'Vestby is a district whose administrative centre is Holmen.'),
      chunk(3, 'Holmen', 'Holmen has a population of 4,200 and a wooden church from 1720.'),
      chunk(4, 'Grå River', 'The Grå River is 40 km long.'),
      chunk(5, 'Tinden', 'Tinden is a mountain with a population of ptarmigans near Lake Storvatn.'),
    ];
    const { entities, relationships } = await createOfflineGraphExtractor().extract(chunks);
    const graph = new EntityGraph(resolveEntities(entities, relationships));
    const { hits, seeds } = graph.search('What is the population of the administrative centre of the district where Skua Lake lies?', 5);
    assert.deepEqual(
      seeds.map((s) => s.name),
      ['Skua Lake'],
    );
    const order = hits.map((h) => h.chunkId);
    assert.equal(order[0], 1);
    assert.ok(
      order.indexOf(3) >= 0 && order.indexOf(3) < (order.indexOf(5) < 0 ? Infinity : order.indexOf(5)),
      `Holmen before Tinden: ${order}`,
    );
    assert.deepEqual(graph.search('Nothing named here at all', 5).hits, []);
  });
});
