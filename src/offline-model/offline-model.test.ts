import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { StoredChunk } from '../store/types.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { formatEvidence } from '../evidence/evidence-format.ts';
import { EvidenceLedger } from '../evidence/ledger.ts';
import { FINAL_ANSWER_NOW } from '../agent/prompts.ts';
import { composeAnswer, NOT_FOUND } from './answer/answer-composer.ts';
import { entitiesIn } from './text/entities.ts';
import { createOfflineModel, type OfflineModelOptions } from './offline-model.ts';
import { firstQueries } from './plan/planner.ts';
import { readPromptState } from './prompt-state.ts';
import { sentencesOf } from './text/sentences.ts';

const QUESTION = 'What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?';
const KISS_AND_TELL = 'Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.';
const SHIRLEY_TEMPLE =
  'Shirley Temple Black was an American actress who later held the government position of United States Ambassador to Ghana.';
const search = { type: 'function' as const, name: 'search_knowledge', inputSchema: { type: 'object' as const } };

let chunkId = 0;
const chunk = (title: string, text: string): StoredChunk => {
  chunkId++;
  return {
    id: chunkId,
    documentId: chunkId,
    collection: 'default',
    title,
    source: `/d/${chunkId}`,
    ordinal: 0,
    text,
    tokenCount: 20,
    headingPath: [],
    charStart: 0,
    charEnd: text.length,
  };
};

/** The prompt the agent loop would send after these search rounds: each round is [query, passages found]. */
function promptAfter(
  question: string,
  rounds: Array<Array<[string, StoredChunk[]]>>,
  ledger = new EvidenceLedger(),
  finalAsk = false,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [
    { role: 'system', content: 'rules' },
    { role: 'user', content: [{ type: 'text', text: question }] },
  ];
  rounds.forEach((searches, r) => {
    const ids = searches.map((_, i) => `offline-${r + 1}-${i}`);
    prompt.push({
      role: 'assistant',
      content: searches.map(([query], i) => ({
        type: 'tool-call' as const,
        toolCallId: ids[i],
        toolName: 'search_knowledge',
        input: JSON.stringify({ query }),
      })),
    });
    prompt.push({
      role: 'tool',
      content: searches.map(([, chunks], i) => {
        const entries = ledger
          .addHits(
            chunks.map((c, rank) => ({ chunk: c, score: 10 - rank })),
            { step: r + 1, query: searches[i][0], tool: 'search_knowledge' },
          )
          .map((a) => a.entry);
        return {
          type: 'tool-result' as const,
          toolCallId: ids[i],
          toolName: 'search_knowledge',
          output: { type: 'text' as const, value: formatEvidence(entries, 1200) },
        };
      }),
    });
  });
  if (finalAsk) prompt.push({ role: 'user', content: [{ type: 'text', text: FINAL_ANSWER_NOW }] });
  return prompt;
}

async function decide(
  prompt: LanguageModelV3Prompt,
  options: OfflineModelOptions = {},
  tools = [search],
): Promise<LanguageModelV3Content[]> {
  const result = await createOfflineModel(options).doGenerate({ prompt, tools } as LanguageModelV3CallOptions);
  return result.content;
}

const searchesIn = (content: LanguageModelV3Content[]) =>
  content.flatMap((part) => (part.type === 'tool-call' ? [JSON.parse(part.input) as { query: string; k: number }] : []));
const textOf = (content: LanguageModelV3Content[]) => content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe('offline model: planner', () => {
  it('decomposes a question into several searches at once: the whole question, then its named entities', async () => {
    const searches = searchesIn(await decide(promptAfter(QUESTION, [])));
    assert.deepEqual(searches[0], { query: QUESTION, k: 6 });
    const entities = searches.slice(1).map((s) => s.query);
    assert.ok(entities.includes('Corliss Archer') && entities.some((e) => e.startsWith('Kiss and Tell')), entities.join(' | '));
    assert.ok(searches.slice(1).every((s) => s.k === 3));
    assert.deepEqual(
      firstQueries('Where is "Hey Jude" from?').map((s) => s.query),
      ['Where is "Hey Jude" from?', 'Hey Jude'],
    );
    // a demonym alone is not searched: it would spend reads on "American people"
    assert.deepEqual(
      firstQueries('Which American surfer from Hawaii won the Rip Curl Pro Portugal?')
        .map((s) => s.query)
        .slice(1),
      ['Hawaii', 'Rip Curl Pro Portugal'],
    );
  });

  it('bridge queries follow a name found in the evidence that the question does not mention', async () => {
    const prompt = promptAfter(QUESTION, [[[QUESTION, [chunk('Kiss and Tell (1945 film)', KISS_AND_TELL)]]]]);
    const searches = searchesIn(await decide(prompt));
    assert.ok(searches.length > 0, 'a second round');
    assert.deepEqual(searches[0], { query: 'Shirley Temple', k: 2 });
    assert.ok(!searches.some((s) => s.query === 'Corliss Archer'), 'names the question gives are not bridges');
  });

  it('bridge queries follow the passage of the name a hop starts from, one-word names too, however low it ranks', async () => {
    const question = 'According to the 2001 census, what was the population of the city in which Marsh Hollow is located?';
    const others = [
      chunk(
        'Eastport Harbour',
        'Eastport Harbour is a port city on the Tarran Estuary with a population of 48,000 according to the 2001 census.',
      ),
      chunk('Wendle Vale', 'Wendle Vale is a city located in the Corran Hills, according to the 2001 census home to 20,000 people.'),
      chunk('Harlan Cross', 'Harlan Cross is a city located on the Mere Road; its population at the 2001 census was 15,500.'),
    ];
    const hamlet = chunk(
      'Marsh Hollow',
      'Marsh Hollow is a hamlet in the civil parish of Ferrow in the Dunmore district of Eastshire, England.',
    );
    const searches = searchesIn(await decide(promptAfter(question, [[[question, [...others, hamlet]]]])));
    assert.ok(
      searches.some((s) => s.query === 'Dunmore'),
      searches.map((s) => s.query).join(' | '),
    );
  });

  it('stops after maxRounds, when a round adds nothing new, when asked to answer, and without a search tool', async () => {
    const kiss = chunk('Kiss and Tell (1945 film)', KISS_AND_TELL);
    const oneRound = promptAfter(QUESTION, [[[QUESTION, [kiss]]]]);
    assert.deepEqual(searchesIn(await decide(oneRound, { maxRounds: 1 })), []);
    const ledger = new EvidenceLedger();
    const nothingNew = promptAfter(QUESTION, [[[QUESTION, [kiss]]], [['Shirley Temple', [kiss]]]], ledger);
    assert.deepEqual(searchesIn(await decide(nothingNew, { maxRounds: 5 })), [], 'round 2 found only E1 again');
    assert.deepEqual(searchesIn(await decide(promptAfter(QUESTION, [], new EvidenceLedger(), true))), []);
    assert.deepEqual(searchesIn(await decide(promptAfter(QUESTION, []), {}, [])), []);
    const answer = textOf(await decide(oneRound, { maxRounds: 1 }));
    assert.ok(answer.length > 0 && !/^Offline extractive answer/.test(answer), 'an answer, with no banner');
  });

  it('reads its state from the prompt alone: rounds, queries and evidence with the ranks that found it', () => {
    const state = readPromptState(
      promptAfter(QUESTION, [
        [
          [QUESTION, [chunk('A', 'Alpha text here.'), chunk('B', 'Beta text here.')]],
          ['Corliss Archer', [chunk('C', 'Gamma text.')]],
        ],
      ]),
    );
    assert.equal(state.question, QUESTION);
    assert.equal(state.rounds, 1);
    assert.deepEqual([...state.queries], [QUESTION.toLowerCase(), 'corliss archer']);
    assert.deepEqual(
      state.evidence.map((e) => [e.id, e.title, e.rank, e.questionRank, e.round]),
      [
        ['E1', 'A', 0, 0, 1],
        ['E2', 'B', 1, 1, 1],
        ['E3', 'C', 0, undefined, 1],
      ],
    );
  });
});

describe('offline model: answer composer', () => {
  const tokenizer = new Tokenizer({ language: 'english' });

  it('answers a two-hop question with the span first, then the sentences of both hops, each citing its evidence id', async () => {
    const prompt = promptAfter(QUESTION, [
      [[QUESTION, [chunk('Kiss and Tell (1945 film)', KISS_AND_TELL)]]],
      [['Shirley Temple', [chunk('Shirley Temple', SHIRLEY_TEMPLE)]]],
    ]);
    const answer = textOf(await decide(prompt));
    const [direct, ...support] = answer.split('\n');
    assert.match(direct, /^United States Ambassador to Ghana \[E\d\]/, answer);
    assert.ok(
      support.some((line) => /Ambassador to Ghana\. \[E2\]$/.test(line)),
      answer,
    );
    assert.ok(
      support.some((line) => /Corliss Archer\. \[E1\]$/.test(line)),
      answer,
    );
  });

  it('says "not found in the documents" when the evidence lacks the question\'s terms', () => {
    const state = readPromptState(
      promptAfter('Which Halvorsen sensor was sent to Mars on the rover?', [
        [['Which Halvorsen sensor was sent to Mars on the rover?', [chunk('Kiss and Tell (1945 film)', KISS_AND_TELL)]]],
      ]),
    );
    assert.match(
      composeAnswer(state, tokenizer, 3),
      /^Not found in the documents: nothing about "Halvorsen" or "Mars" in the retrieved passages\.$/,
    );
    const none = readPromptState(promptAfter(QUESTION, []));
    assert.equal(composeAnswer(none, tokenizer, 3), NOT_FOUND);
  });

  it('takes at most the given number of supporting sentences', () => {
    const long =
      'Corliss Archer was a fictional teenager. Corliss Archer appeared on radio in 1943. The woman who portrayed Corliss Archer held a government position later. Kiss and Tell was a film.';
    const state = readPromptState(promptAfter(QUESTION, [[[QUESTION, [chunk('Corliss Archer', long)]]]]));
    assert.ok(composeAnswer(state, tokenizer, 1).split('\n').length <= 2);
  });
});

describe('offline model: text helpers', () => {
  it('entities: quoted phrases and capitalised runs, without dates, leading numbers or lone sentence starts', () => {
    assert.deepEqual(
      entitiesIn('Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.'),
      ['Kiss and Tell', 'American', 'Shirley Temple', 'Corliss Archer'],
    );
    assert.deepEqual(entitiesIn('The "Tern-4" trial of 12 May 2021 ran at the Bank of England.'), ['Tern-4', 'Bank of England']);
  });

  it('entities in documentation: code blocks unread, a code word in prose is its identifier, an opening "See" is no part of a name', () => {
    const text = [
      'Create the Gadget app with Gadget(routes=routes) and serve it.',
      '',
      '```python',
      'app = Gadget(routes=[Route("/", Homepage)])',
      'response = JSONResponse({"hello": "world"})',
      '```',
      '',
      'See Using TestClient for the test setup.',
    ].join('\n');
    const names = entitiesIn(text);
    assert.ok(names.includes('Gadget'), names.join(' | '));
    assert.ok(names.includes('Using TestClient'), names.join(' | '));
    for (const name of names) assert.doesNotMatch(name, /[([{=<]|^See\b|JSONResponse|Homepage/, names.join(' | '));
  });

  it('sentences: hard-wrapped lines stay one sentence; list items and blank lines break', () => {
    assert.deepEqual(
      sentencesOf(
        'The Coastal Team is led\nby Ingrid Maalen. It works from Ålesund.\n\n- first item of the list\n- second item of the list',
      ),
      ['The Coastal Team is led by Ingrid Maalen.', 'It works from Ålesund.', '- first item of the list', '- second item of the list'],
    );
  });
});
