import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { DossierError } from '../errors/index.ts';
import { startAnthropicServer, type AnthropicServer } from '../testing/protocol-server/anthropic.ts';
import { startOpenAIServer, type OpenAIServer } from '../testing/protocol-server/openai.ts';
import { callModel } from './call-model.ts';
import { resolveModel } from './index.ts';

let openai: OpenAIServer;
let anthropic: AnthropicServer;
before(async () => {
  [openai, anthropic] = await Promise.all([startOpenAIServer({ apiKey: 'sk-test' }), startAnthropicServer({ apiKey: 'ant-test' })]);
});
after(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});

/** One real round trip through the resolved model, so keys and base URLs are proven, not just read. */
async function ask(spec: string, env: Record<string, string>): Promise<string> {
  const resolved = await resolveModel(spec, { env });
  const result = await callModel({
    model: resolved.model,
    messages: [{ role: 'user', content: 'hi' }],
    timeoutMs: 5_000,
    maxOutputTokens: 100,
  });
  return result.text;
}

test('offline is the default', async () => {
  const resolved = await resolveModel();
  assert.equal(resolved.id, 'offline');
  assert.equal(resolved.supportsTools, true);
  assert.equal((await resolveModel('offline', { env: {} })).id, 'offline');
});

test('openai:<model> uses OPENAI_API_KEY and OPENAI_BASE_URL over chat completions', async () => {
  const resolved = await resolveModel('openai:gpt-4o-mini', { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL } });
  assert.equal(resolved.id, 'openai:gpt-4o-mini');
  assert.equal(resolved.supportsTools, true);
  assert.equal(resolved.model.modelId, 'gpt-4o-mini');
  openai.reset();
  assert.equal(
    await ask('openai:gpt-4o-mini', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL }),
    'Hello from the protocol server.',
  );
  assert.equal(openai.chat.requests[0].headers.authorization, 'Bearer sk-test');
  assert.equal((openai.chat.requests[0].body as { model: string }).model, 'gpt-4o-mini');
});

test('anthropic:<model> uses ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', async () => {
  anthropic.reset();
  const env = { ANTHROPIC_API_KEY: 'ant-test', ANTHROPIC_BASE_URL: anthropic.baseURL };
  assert.equal(await ask('anthropic:claude-sonnet-4-5', env), 'Hello from the protocol server.');
  assert.equal(anthropic.messages.requests[0].headers['x-api-key'], 'ant-test');
  assert.equal((anthropic.messages.requests[0].body as { model: string }).model, 'claude-sonnet-4-5');
});

test('ollama:<model> splits at the first colon and #text-tools turns native tools off', async () => {
  const resolved = await resolveModel('ollama:llama3:8b#text-tools', { env: { OLLAMA_BASE_URL: openai.baseURL } });
  assert.equal(resolved.id, 'ollama:llama3:8b');
  assert.equal(resolved.model.modelId, 'llama3:8b');
  assert.equal(resolved.supportsTools, false);
  openai.reset();
  // The server wants a key; Ollama sends none, so this also shows the request went where it should.
  await assert.rejects(ask('ollama:llama3:8b', { OLLAMA_BASE_URL: openai.baseURL }), /HTTP 401/);
  const sent = openai.chat.requests[0].body as { model: string; stream_options?: { include_usage?: boolean } };
  assert.equal(sent.model, 'llama3:8b');
  assert.equal(sent.stream_options?.include_usage, true, 'usage is asked for, so token budgets work');
  // No OLLAMA_BASE_URL: the local default, resolved without any network access.
  assert.equal((await resolveModel('ollama:llama3', { env: {} })).supportsTools, true);
});

test('openai-compatible:<model> needs DOSSIER_BASE_URL and sends DOSSIER_API_KEY', async () => {
  openai.reset();
  assert.equal(
    await ask('openai-compatible:my-model', { DOSSIER_BASE_URL: openai.baseURL, DOSSIER_API_KEY: 'sk-test' }),
    'Hello from the protocol server.',
  );
  assert.equal(openai.chat.requests[0].headers.authorization, 'Bearer sk-test');
});

test('unknown providers and missing settings are one-line config errors', async () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['gemini:pro', {}, /unknown model provider "gemini".*openai, anthropic/],
    ['openai:', { OPENAI_API_KEY: 'k' }, /names no model/],
    ['openai:gpt-4o', {}, /OPENAI_API_KEY is not set/],
    ['anthropic:claude', {}, /ANTHROPIC_API_KEY is not set/],
    ['openai-compatible:m', {}, /DOSSIER_BASE_URL is not set/],
  ];
  for (const [spec, env, pattern] of cases) {
    await assert.rejects(resolveModel(spec, { env }), (error: unknown) => {
      assert.ok(DossierError.isInstance(error), `${spec}: ${String(error)}`);
      assert.equal(error.code, 'config');
      assert.match(error.message, pattern);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  }
});

test('an AI SDK model object is returned as is', async () => {
  const model = createOpenAI({ apiKey: 'k', baseURL: openai.baseURL }).chat('gpt-x');
  const resolved = await resolveModel(model);
  assert.equal(resolved.model, model);
  assert.equal(resolved.id, 'openai.chat:gpt-x');
  assert.equal(resolved.supportsTools, true);
});
