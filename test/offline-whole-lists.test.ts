import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { runAgent, type AgentResult } from '../src/agent/run-agent.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { resolveModel } from '../src/providers/index.ts';
import { tempDir } from './helpers.ts';

/** Items without names or the question's words: only reading on finds the later ones. */
const FORMATS = [
  'comma-separated text, with a header row naming each column of the table',
  'tab-separated text, with the same header row as comma-separated text',
  'line-delimited objects, one object per line, each with the same keys',
  'columnar archives, taken column by column without loading the whole archive',
  'spreadsheet workbooks, where only the first sheet of the workbook is taken',
  'embedded databases, where the table to chart is named with a flag',
  'arrow-style frames, written by dataframe libraries in their native layout',
  'markup documents, where every row is an element with one child per column',
];

/** Sections around the list that the searches rank above its later chunks (which name nothing the question asks). */
const OTHER_SECTIONS: [string, string][] = [
  ['Reading large inputs', 'Widget reads large input files in pieces, so memory stays flat whatever the input size.'],
  ['Input encodings', 'Widget reads input as UTF-8 unless a flag names another encoding for the input.'],
  ['Output formats', 'Widget writes charts in the vector format by default; the output file extension picks another format.'],
  ['Reading from standard input', 'Widget reads its input from standard input when no file is named on the command line.'],
  ['Format detection', 'Widget detects the input format from the file extension, and reads the first bytes when there is none.'],
  ['Configuration', 'Widget reads its settings from a configuration file in the home directory before it reads any input.'],
];

const MANUAL = `# Widget manual

## Overview

Widget turns tabular files into charts. It runs on the command line and keeps no state between runs.

## Input formats

Widget reads the following input formats:

${FORMATS.map((format) => `- ${format}`).join('\n')}

${OTHER_SECTIONS.map(([heading, text]) => `## ${heading}\n\n${text}\n`).join('\n')}
## Troubleshooting

When a chart comes out empty, check that the header row names the columns you asked for in Widget.
`;

const NOTES = `# Widget notes

${['Release cadence', 'Licence', 'Support', 'Contributing', 'Plugins', 'Security', 'Telemetry', 'Roadmap']
  .map(
    (topic) =>
      `## ${topic}\n\nWidget notes on ${topic.toLowerCase()}: this part is kept short, and the team updates it with each release.\n`,
  )
  .join('\n')}`;

const QUESTION = 'Which input formats does Widget read?';

interface Asked {
  result: AgentResult;
  reads: { documentId: number; from: number; to?: number }[];
  /** The evidence ids the get_content results gave. */
  readIds: Set<string>;
}

/**
 * The offline model reading a list whole: real ingest of a Markdown manual whose list is long enough
 * to be split across chunks (or cut by a small result budget), the real agent loop and get_content.
 */
describe('offline reader: whole lists', () => {
  let temp: ReturnType<typeof tempDir>;
  const open: Dossier[] = [];
  before(() => {
    temp = tempDir();
    writeFileSync(join(temp.dir, 'widget.md'), MANUAL);
    writeFileSync(join(temp.dir, 'notes.md'), NOTES);
  });
  after(async () => {
    for (const dossier of open) await dossier.close();
    temp.cleanup();
  });
  const indexWith = async (name: string, maxTokens: number) => {
    const dossier = await createDossier({ db: join(temp.dir, `${name}.db`) });
    open.push(dossier);
    await dossier.ingest([join(temp.dir, 'widget.md'), join(temp.dir, 'notes.md')], { chunking: { maxTokens } });
    return dossier;
  };
  const manualOf = async (dossier: Dossier) => {
    const documents = await dossier.store.listDocuments({ collections: '*' }, {});
    const manual = documents.find((document) => document.title === 'Widget manual');
    assert.ok(manual);
    return manual;
  };
  const ask = async (knowledge: Dossier, options: { resultTokens?: number } = {}): Promise<Asked> => {
    const events: AgentEvent[] = [];
    const result = await runAgent({
      knowledge,
      question: QUESTION,
      model: await resolveModel('offline'),
      onEvent: (event) => events.push(event),
      ...options,
    });
    const reads = events.flatMap((event) =>
      event.type === 'tool-call' && event.toolName === 'get_content' ? [event.input as Asked['reads'][number]] : [],
    );
    const readIds = new Set(
      events.flatMap((event) => (event.type === 'tool-result' && event.toolName === 'get_content' ? (event.evidenceIds ?? []) : [])),
    );
    return { result, reads, readIds };
  };
  /** Every format is a line of the answer, cited to a chunk that holds it; nothing of the next section. */
  const assertWholeList = ({ result }: Asked) => {
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.unresolvedCitations, []);
    const lines = result.answer.split('\n');
    for (const format of FORMATS) {
      const line = lines.find((l) => l.startsWith(`- ${format} [`));
      assert.ok(line, `the answer lists "${format}":\n${result.answer}`);
      const id = /\[(E\d+)\]$/.exec(line)?.[1];
      const cited = result.citations.find((citation) => citation.id === id);
      assert.ok(cited?.text.includes(format), `${id} resolves to a chunk holding "${format}"`);
    }
    // The list stops at the end of its section.
    for (const [, text] of OTHER_SECTIONS) assert.ok(!result.answer.includes(text), `nothing of another section:\n${result.answer}`);
    assert.doesNotMatch(result.answer, /chart comes out empty/);
  };

  it('reads on with get_content into the next chunks of the section when the list runs to the end of its chunk', async () => {
    const dossier = await indexWith('small-chunks', 60);
    const document = await manualOf(dossier);
    const chunks = await dossier.store.getChunkRange({ collections: '*' }, document.id, 0, document.chunkCount - 1);
    const listChunks = chunks.filter((chunk) => chunk.headingPath.includes('Input formats'));
    assert.ok(listChunks.length >= 3, 'the list spans three chunks of its section');
    const asked = await ask(dossier);
    assert.ok(asked.reads.length >= 1, 'the model read on with get_content');
    assert.ok(asked.reads.length <= 2, 'at most two reads per question');
    for (const read of asked.reads) assert.equal(read.documentId, document.id);
    assertWholeList(asked);
    // The items come from more than one chunk, each cited to its own, some to a chunk only the read brought.
    const ids = new Set(asked.result.answer.split('\n').flatMap((line) => (/^- .*\[(E\d+)\]$/.exec(line) ?? []).slice(1)));
    assert.ok(ids.size >= 2, `items cite the chunks they came from:\n${asked.result.answer}`);
    assert.ok(
      [...ids].some((id) => asked.readIds.has(id)),
      `an item cites a chunk get_content read (${[...asked.readIds]}):\n${asked.result.answer}`,
    );
  });

  it('reads a chunk whole with get_content when the search result cut it inside its list', async () => {
    const dossier = await indexWith('one-chunk', 512);
    const document = await manualOf(dossier);
    const listChunk = (await dossier.store.getChunkRange({ collections: '*' }, document.id, 0, document.chunkCount - 1)).find((chunk) =>
      chunk.headingPath.includes('Input formats'),
    );
    assert.ok(listChunk && FORMATS.every((format) => listChunk.text.includes(format)), 'the whole list is one chunk');
    // A small result budget cuts the passage inside the list.
    const asked = await ask(dossier, { resultTokens: 400 });
    assert.ok(
      asked.reads.some((read) => read.documentId === document.id && read.from === listChunk.ordinal),
      'the cut chunk was read whole',
    );
    assertWholeList(asked);
  });
});
