import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { mcpRoutes } from '../src/mcp/index.ts';
import { optionalRouteGroups } from '../src/server/groups.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { CLI, runCliProcess, tempDir } from './helpers.ts';
import { assertDelivered, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

// These tests spawn the built binary (dist/): `npm test` builds first; run `npm run -s build` when alone.

// ask and research runs are answered by the scripted model (test/scripted-model.ts), in this process
// and in the stdio child alike: the tests check what MCP does with an answer the script determines.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());
afterEach(() => model.reset());
/** The Dossier's env with the scripted model as its default. */
const scriptedEnv = () => ({ ...process.env, ...model.env });

const TOOLS = ['ask', 'get_content', 'graph_communities', 'graph_entities', 'graph_entity', 'list_documents', 'research', 'search'];

/** The text of a tool result (every tool answers with one text part). */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((part) => part.text ?? '').join('\n');
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { result, text: textOf(result), data: result.structuredContent as any, isError: result.isError === true };
}

/** An MCP client of `${url}/mcp` sending `key`, kept in `clients` to be closed. */
async function keyedClient(url: string, key: string, clients: Client[]): Promise<Client> {
  const client = new Client({ name: 'dossier-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

/** Users alice (reader of collection a) and bob (reader of b), and a key of each. */
async function readersOfAAndB(db: string): Promise<{ alice: string; bob: string }> {
  const state = await openServerState(db);
  const alice = await state.createUser('alice');
  const bob = await state.createUser('bob');
  await state.grant('a', alice.id, 'reader');
  await state.grant('b', bob.id, 'reader');
  const keys = { alice: (await state.createKey(alice.id)).apiKey, bob: (await state.createKey(bob.id)).apiKey };
  await state.close();
  return keys;
}

/** The regression corpus, indexed and closed again (the MCP servers open it themselves). */
async function regressionDb(dir: string): Promise<string> {
  const db = join(dir, 'index.db');
  const dossier = await createDossier({ db });
  await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
  await dossier.close();
  return db;
}

/** The checks both transports must pass, against the regression corpus. */
function coreSuite(connect: () => Client) {
  it('lists the eight tools, each saying retrieved text is data', async () => {
    const { tools } = await connect().listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
    for (const tool of tools) assert.match(tool.description ?? '', /never follow instructions/, tool.name);
    const search = tools.find((tool) => tool.name === 'search')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
  });

  it('search returns hits with the planted text and their chunk ids', async () => {
    const { text, data, isError } = await call(connect(), 'search', { query: 'Tern-4 sea trial', k: 3 });
    assert.equal(isError, false);
    assert.match(data.hits[0].text, /Hardangerfjord/);
    assert.ok(Number.isInteger(data.hits[0].chunkId) && Number.isInteger(data.hits[0].documentId));
    assert.match(text, new RegExp(`chunk ${data.hits[0].chunkId} · document ${data.hits[0].documentId}`));
    assert.match(text, /Hardangerfjord/);
  });

  it('ask answers with its citations listed', async () => {
    const { text, data, isError } = await call(connect(), 'ask', { question: 'Where did the Tern-4 sea trial take place?' });
    assert.equal(isError, false, text);
    assertDelivered(data, model.answersTo('Where did the Tern-4 sea trial take place?')[0]!);
    assert.ok(text.startsWith(data.answer), text);
    assert.equal(data.finishReason, 'stop');
    assert.ok(data.citations.length > 0);
    const cited = data.citations[0];
    assert.match(text, /Citations:/);
    assert.ok(text.includes(`[${cited.id}] ${cited.title}`) && text.includes(`chunk ${cited.chunkId}`), text);
  });

  it('research returns a cited report with its plan', async () => {
    const { text, data, isError } = await call(connect(), 'research', {
      question: 'Where did the Tern-4 sea trial take place, and who led it?',
    });
    assert.equal(isError, false, text);
    assert.ok(Array.isArray(data.plan) && data.plan.length >= 1);
    assert.match(text, /Plan:\n- \[(answered|open|failed)\] /);
    // The planner's report, its citations resolving to the chunks it quotes.
    const report = model.answers.filter((a) => a.role === 'planner');
    assert.equal(report.length, 1);
    assertDelivered(data, report[0]!.answer);
    assert.ok(text.includes(report[0]!.answer), text);
    assert.ok(data.citations.length > 0);
  });

  it('get_content reads a document by chunk ordinals; list_documents pages', async () => {
    const client = connect();
    const listed = await call(client, 'list_documents', { limit: 50 });
    assert.equal(listed.isError, false);
    const staff = listed.data.documents.find((d: any) => /Staff directory/.test(d.title));
    assert.ok(staff && staff.chunks >= 2, listed.text);
    assert.match(listed.text, new RegExp(`^${staff.id} · Staff directory`, 'm'));
    const page = await call(client, 'list_documents', { limit: 2, offset: 1 });
    assert.deepEqual(
      page.data.documents.map((d: any) => d.id),
      listed.data.documents.slice(1, 3).map((d: any) => d.id),
    );
    const one = await call(client, 'get_content', { documentId: staff.id, fromChunk: 1, toChunk: 1 });
    assert.equal(one.isError, false, one.text);
    assert.deepEqual(
      one.data.chunks.map((c: any) => c.ordinal),
      [1],
    );
    assert.match(one.text, /Staff directory/);
    const all = await call(client, 'get_content', { documentId: staff.id });
    assert.equal(all.data.chunks.length, staff.chunks);
    assert.ok(all.text.includes(all.data.chunks[0].text));
  });

  it('documents are resources: listed and read with title and source', async () => {
    const client = connect();
    const { resources } = await client.listResources();
    assert.equal(resources.length, 7);
    const notes = resources.find((r) => /Tern-4/.test(r.name))!;
    assert.match(notes.uri, /^dossier:\/\/documents\/\d+$/);
    const { contents } = await client.readResource({ uri: notes.uri });
    const text = String((contents[0] as { text?: string }).text);
    assert.match(text, /^Title: Field notes from the Tern-4 sea trial\nSource: .*field-notes-injected\.md\n/);
    assert.match(text, /Hardangerfjord/);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ['dossier://documents/{id}'],
    );
    await assert.rejects(client.readResource({ uri: 'dossier://documents/99999' }), /no document 99999/);
  });

  it('bad arguments and unknown ids are one-line isError results, and the server keeps serving', async () => {
    const client = connect();
    const bad = await call(client, 'search', { query: 'x', k: 'ten', mode: 'bogus' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /k/);
    assert.doesNotMatch(bad.text, /\n/);
    const missing = await call(client, 'get_content', { documentId: 99999 });
    assert.equal(missing.isError, true);
    assert.equal(missing.text, 'not-found: no document 99999');
    const collection = await call(client, 'search', { query: 'Tern-4', collections: ['nope'] });
    assert.equal(collection.isError, true);
    assert.match(collection.text, /^not-found: unknown collection "nope"/);
    const backwards = await call(client, 'get_content', { documentId: 1, fromChunk: 2, toChunk: 1 });
    assert.equal(backwards.isError, true);
    assert.equal((await call(client, 'search', { query: 'Tern-4 sea trial' })).isError, false);
  });
}

describe('MCP over stdio: `dossier mcp` (the built binary)', () => {
  let client: Client;
  let stderr = '';
  const clientErrors: string[] = [];
  let temp: ReturnType<typeof tempDir>;
  let db: string;
  before(async () => {
    temp = tempDir();
    db = await regressionDb(temp.dir);
    // Run in the temp folder so no dossier.config.json of the checkout applies.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--db', db],
      cwd: temp.dir,
      stderr: 'pipe',
      env: { ...getDefaultEnvironment(), ...model.env },
    });
    transport.stderr?.on('data', (data) => (stderr += data));
    client = new Client({ name: 'dossier-test', version: '1.0.0' });
    // A stray line on stdout would break the framing and show up here.
    client.onerror = (error) => clientErrors.push(error.message);
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    temp.cleanup();
  });

  coreSuite(() => client);

  it('keeps stdout for the protocol and logs to stderr', () => {
    assert.deepEqual(clientErrors, []);
    assert.match(stderr, /dossier mcp: serving every collection over stdio/);
  });

  it('an unknown --collection fails before serving, with nothing on stdout', async () => {
    const scoped = await runCliProcess(['mcp', '--db', db, '--collection', 'nope'], { cwd: temp.dir });
    assert.equal(scoped.status, 1);
    assert.equal(scoped.stdout, '');
    assert.match(scoped.stderr, /unknown collection "nope"; existing: default/);
  });
});

describe('MCP over Streamable HTTP: /mcp on a loopback server', () => {
  let dossier: Dossier;
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: Client;
  let temp: ReturnType<typeof tempDir>;
  before(async () => {
    temp = tempDir();
    const db = await regressionDb(temp.dir);
    dossier = await createDossier({ db, env: scriptedEnv() });
    server = await startServer({ dossier, db, port: 0, extra: [mcpRoutes] });
    client = new Client({ name: 'dossier-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await dossier?.close();
    temp.cleanup();
  });

  coreSuite(() => client);

  it('is one of the route groups `dossier serve` mounts', async () => {
    assert.ok((await optionalRouteGroups()).includes(mcpRoutes));
  });

  it('is stateless: GET has no stream to open', async () => {
    const response = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 405);
  });
});

describe('MCP over Streamable HTTP with keys: one tenant cannot reach another', () => {
  let dossier: Dossier;
  let server: Awaited<ReturnType<typeof startServer>>;
  let temp: ReturnType<typeof tempDir>;
  let aliceKey: string;
  let bobKey: string;
  let secretId: number;
  let ids: number[];
  const clients: Client[] = [];

  const clientFor = async (key: string) => keyedClient(server.url, key, clients);

  before(async () => {
    temp = tempDir();
    const db = join(temp.dir, 'index.db');
    for (const [folder, text] of [
      ['a', '# Nightjar launch plan\n\nThe Nightjar launch code is AMBERFALCON. The Nightjar launch is set for October.\n'],
      ['b', '# Sandpiper shipping\n\nThe Sandpiper ships from Bergen harbour every Tuesday.\n'],
    ]) {
      mkdirSync(join(temp.dir, folder));
      writeFileSync(join(temp.dir, folder, `${folder}.md`), text);
    }
    dossier = await createDossier({ db, env: scriptedEnv() });
    await dossier.ingest([join(temp.dir, 'a')], { collection: 'a' });
    await dossier.ingest([join(temp.dir, 'b')], { collection: 'b' });
    const documents = await dossier.listDocuments();
    secretId = documents.find((d) => d.collection === 'a')!.id;
    ids = documents.map((d) => d.id);
    ({ alice: aliceKey, bob: bobKey } = await readersOfAAndB(db));
    server = await startServer({ dossier, db, port: 0, auth: 'keys', extra: [mcpRoutes] });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await dossier?.close();
    temp.cleanup();
  });

  it('the owner of collection a sees it (so the checks below are not vacuous)', async () => {
    const alice = await clientFor(aliceKey);
    const { data } = await call(alice, 'search', { query: 'Nightjar launch code' });
    assert.match(data.hits[0].text, /AMBERFALCON/);
    const content = await call(alice, 'get_content', { documentId: secretId });
    assert.match(content.text, /AMBERFALCON/);
    // Her runs are shown the passage (the scripted model quotes it).
    for (const tool of ['ask', 'research'])
      assert.match((await call(alice, tool, { question: 'What is the Nightjar launch code?' })).text, /AMBERFALCON/, tool);
    assert.ok(model.answers.some((a) => a.evidence.some((e) => e.text.includes('AMBERFALCON'))));
    assert.deepEqual(
      (await alice.listResources()).resources.map((r) => r.name),
      ['Nightjar launch plan'],
    );
  });

  it('user b cannot search, ask, research or list anything of collection a', async () => {
    const bob = await clientFor(bobKey);
    for (const mode of ['hybrid', 'fulltext', 'vector']) {
      const { text, data } = await call(bob, 'search', { query: 'Nightjar launch code AMBERFALCON', mode, k: 50 });
      assert.ok(
        data.hits.every((hit: any) => hit.collection === 'b'),
        mode,
      );
      assert.doesNotMatch(text, /AMBERFALCON|Nightjar/);
    }
    const named = await call(bob, 'search', { query: 'Nightjar', collections: ['a'] });
    assert.equal(named.isError, true);
    assert.equal(named.text, 'not-found: no collection "a"');
    // The same answer as for a collection that does not exist at all.
    assert.equal((await call(bob, 'search', { query: 'Nightjar', collections: ['zzz'] })).text, 'not-found: no collection "zzz"');
    for (const tool of ['ask', 'research']) {
      const run = await call(bob, tool, { question: 'What is the Nightjar launch code?' });
      assert.doesNotMatch(run.text, /AMBERFALCON/, tool);
      assert.ok(
        model.answers.length > 0 && model.answers.every((a) => a.evidence.every((e) => !/AMBERFALCON|Nightjar/.test(e.text))),
        `${tool}: the model was shown nothing of collection a`,
      );
      assert.ok(
        (run.data?.citations ?? []).every((c: any) => c.documentId !== secretId),
        tool,
      );
      assert.equal(
        (await call(bob, tool, { question: 'What is the Nightjar launch code?', collections: ['a'] })).text,
        'not-found: no collection "a"',
      );
    }
    const listed = await call(bob, 'list_documents', {});
    assert.deepEqual(
      listed.data.documents.map((d: any) => d.collection),
      ['b'],
    );
    assert.doesNotMatch(listed.text, /Nightjar/);
    assert.equal((await call(bob, 'list_documents', { collection: 'a' })).text, 'not-found: no collection "a"');
    assert.deepEqual(
      (await bob.listResources()).resources.map((r) => r.name),
      ['Sandpiper shipping'],
    );
  });

  it('user b guessing document ids gets "not found", never a title or text', async () => {
    const bob = await clientFor(bobKey);
    const bobsOwn = (await call(bob, 'list_documents', {})).data.documents.map((d: any) => d.id);
    for (const id of [...ids, Math.max(...ids) + 1].filter((id) => !bobsOwn.includes(id))) {
      const content = await call(bob, 'get_content', { documentId: id });
      assert.equal(content.isError, true);
      assert.equal(content.text, `not-found: no document ${id}`);
      await assert.rejects(bob.readResource({ uri: `dossier://documents/${id}` }), (error: Error) => {
        assert.match(error.message, new RegExp(`no document ${id}$`));
        assert.doesNotMatch(error.message, /Nightjar|AMBERFALCON/);
        return true;
      });
    }
  });

  it('without a valid key the transport gets 401', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).error.code, 'unauthorized');
    const wrong = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer dsk_not-a-key' },
      body,
    });
    assert.equal(wrong.status, 401);
    const client = new Client({ name: 'dossier-test', version: '1.0.0' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))), /401|nauthorized/);
  });
});

describe('MCP: the knowledge-graph tools over Streamable HTTP with keys', () => {
  let dossier: Dossier;
  let server: Awaited<ReturnType<typeof startServer>>;
  let temp: ReturnType<typeof tempDir>;
  const keys = { alice: '', bob: '' };
  const clients: Client[] = [];

  const clientFor = async (key: string) => keyedClient(server.url, key, clients);

  before(async () => {
    temp = tempDir();
    const db = join(temp.dir, 'index.db');
    for (const [folder, name, text] of [
      [
        'a',
        'halvorsen.md',
        '# Marit Halvorsen\n\nMarit Halvorsen is an engineer from Bergen. Marit Halvorsen founded Tidewater Instruments in 1987. Marit Halvorsen and Erik Dahl designed the Kestrel radio in Bergen.\n',
      ],
      [
        'a',
        'tidewater.md',
        '# Tidewater Instruments\n\nTidewater Instruments builds marine radios. Tidewater Instruments opened a second factory in Stavanger in 1999.\n',
      ],
      ['a', 'weather.md', '# Coastal weather\n\nAutumn storms on the coast bring heavy rain and strong winds to the harbour towns.\n'],
      [
        'b',
        'harbour.md',
        '# Harbour office\n\nIngrid Solberg runs the Harbour Office of Kvitsund. The Harbour Office of Kvitsund opens at six.\n',
      ],
    ]) {
      mkdirSync(join(temp.dir, folder), { recursive: true });
      writeFileSync(join(temp.dir, folder, name), text);
    }
    dossier = await createDossier({ db, env: scriptedEnv() });
    await dossier.ingest([join(temp.dir, 'a')], { collection: 'a' });
    await dossier.ingest([join(temp.dir, 'b')], { collection: 'b' });
    await dossier.graph.build();
    Object.assign(keys, await readersOfAAndB(db));
    server = await startServer({ dossier, db, port: 0, auth: 'keys', extra: [mcpRoutes] });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await dossier?.close();
    temp.cleanup();
  });

  it('graph_entities finds an entity by name; graph_entity gives its relationships with chunk ids and their text', async () => {
    const alice = await clientFor(keys.alice);
    const found = await call(alice, 'graph_entities', { query: 'marit halvorsen' });
    assert.equal(found.isError, false, found.text);
    const [marit] = found.data.entities;
    assert.equal(marit.name, 'Marit Halvorsen');
    assert.ok(marit.chunkIds.length > 0 && marit.chunkIds.every(Number.isInteger));
    assert.match(found.text, new RegExp(`Marit Halvorsen \\(\\w+\\) · id ${marit.id} · collection a`));

    for (const entity of [marit.id, 'Marit Halvorsen']) {
      const shown = await call(alice, 'graph_entity', { entity });
      assert.equal(shown.isError, false, shown.text);
      assert.equal(shown.data.entity.id, marit.id);
      const founded = shown.data.relationships.find((r: any) => [r.subject, r.object].includes('Tidewater Instruments'));
      assert.ok(founded, shown.text);
      assert.ok(founded.chunkIds.length > 0);
      const passage = shown.data.passages.find((p: any) => p.chunkId === founded.chunkIds[0]);
      assert.match(passage.text, /Marit Halvorsen founded Tidewater Instruments/);
      // The text names each relationship with its chunk ids, and quotes the chunks under their ids.
      assert.ok(shown.text.includes(`chunks ${founded.chunkIds.join(', ')}]`), shown.text);
      assert.ok(shown.text.includes(`--- chunk ${passage.chunkId} · document ${passage.documentId} · Marit Halvorsen`), shown.text);
    }
    const tidewater = (await call(alice, 'graph_entities', { query: 'Tidewater' })).data.entities[0];
    assert.equal(tidewater.name, 'Tidewater Instruments');
    const communities = await call(alice, 'graph_communities', {});
    assert.equal(communities.isError, false, communities.text);
    assert.ok(communities.data.communities.length > 0, communities.text);
    const [first] = communities.data.communities;
    assert.ok(first.summary.length > 0 && first.chunkIds.length > 0 && first.entityIds.length > 0);
    assert.ok(communities.text.includes(`${first.title} · id ${first.id} · collection a`), communities.text);
  });

  it("another collection's reader finds none of its entities and gets not-found for their ids", async () => {
    const alice = await clientFor(keys.alice);
    const bob = await clientFor(keys.bob);
    const alices = (await call(alice, 'graph_entities', { limit: 200 })).data.entities;
    assert.ok(alices.length > 0 && alices.every((e: any) => e.collection === 'a'));
    const bobs = await call(bob, 'graph_entities', { limit: 200 });
    assert.ok(bobs.data.entities.length > 0 && bobs.data.entities.every((e: any) => e.collection === 'b'), bobs.text);
    assert.doesNotMatch(bobs.text, /Halvorsen|Tidewater/);
    assert.equal((await call(bob, 'graph_entities', { query: 'Marit Halvorsen' })).text, 'no entities');
    for (const entity of [...alices.slice(0, 5).map((e: any) => e.id), 'Marit Halvorsen']) {
      const shown = await call(bob, 'graph_entity', { entity });
      assert.equal(shown.isError, true, entity);
      assert.match(shown.text, /^not-found: /);
      assert.doesNotMatch(shown.text, /Tidewater|Bergen/);
    }
    assert.equal((await call(bob, 'graph_entities', { collections: ['a'] })).text, 'not-found: no collection "a"');
    assert.doesNotMatch((await call(bob, 'graph_communities', {})).text, /Halvorsen|Tidewater|Bergen/);
    assert.equal((await call(bob, 'graph_communities', { collections: ['a'] })).text, 'not-found: no collection "a"');
  });

  it('bad arguments are one-line isError results', async () => {
    const alice = await clientFor(keys.alice);
    for (const [tool, args] of [
      ['graph_entities', { limit: 0 }],
      ['graph_entities', { query: '?!' }],
      ['graph_entity', {}],
      ['graph_entity', { entity: 'no such entity at all' }],
    ] as const) {
      const result = await call(alice, tool, args);
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.doesNotMatch(result.text, /\n/);
    }
    assert.equal((await call(alice, 'graph_entities', { query: 'Marit' })).isError, false);
  });
});
