import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { nativeToolProtocol } from './native.ts';
import { textToolProtocol } from './text.ts';
import { toolProtocolFor } from './index.ts';
import type { ToolOutcome } from '../tool-runner.ts';
import type { AgentTool } from '../tools/tool.ts';

const tool: AgentTool = {
  name: 'search_knowledge',
  description: 'Search.',
  inputSchema: z.object({ query: z.string() }),
  execute: async () => ({ raw: {}, forModel: '', evidence: [], newEvidence: [], summary: '' }),
};
const outcome = (ok: boolean, text: string): ToolOutcome => ({
  call: { toolCallId: 'c1', toolName: 'search_knowledge', input: { query: 'q' } },
  ok,
  text,
  searches: true,
  newEvidence: 0,
});

describe('tool protocols', () => {
  it('the model decides: native tool calls when it supports them, the text protocol otherwise', () => {
    assert.equal(toolProtocolFor({ supportsTools: true }).name, 'native');
    assert.equal(toolProtocolFor({ supportsTools: false }).name, 'text');
  });

  it('native: tools are declared on the call; calls and results go into the history as tool messages', () => {
    assert.equal(nativeToolProtocol.instructions([tool]), '');
    assert.deepEqual(Object.keys(nativeToolProtocol.declare([tool])!), ['search_knowledge']);
    const calls = [
      { toolCallId: 'c1', toolName: 'search_knowledge', input: { query: 'q' } },
      { toolCallId: 'c2', toolName: 'search_knowledge', input: '{"query', inputError: 'bad JSON' },
    ];
    const action = nativeToolProtocol.read({ text: 'Looking.', toolCalls: calls }, { step: 1, allowTools: true });
    assert.equal(action.type, 'tool-calls');
    assert.deepEqual(nativeToolProtocol.read({ text: 'Done [E1].', toolCalls: calls }, { step: 1, allowTools: false }), {
      type: 'answer',
      text: 'Done [E1].',
      raw: 'Done [E1].',
    });
    const messages: ModelMessage[] = [];
    if (action.type === 'tool-calls') nativeToolProtocol.appendToolCalls(messages, action);
    nativeToolProtocol.appendToolResults(messages, [outcome(true, 'found'), { ...outcome(false, 'invalid arguments'), call: calls[1] }]);
    assert.deepEqual(messages, [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'search_knowledge', input: { query: 'q' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'search_knowledge', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'search_knowledge', output: { type: 'text', value: 'found' } },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'search_knowledge',
            output: { type: 'error-text', value: 'invalid arguments' },
          },
        ],
      },
    ]);
  });

  it('text: tools are described in the prompt; JSON actions are read from the text; results and errors go back as user messages', () => {
    assert.equal(textToolProtocol.declare([tool]), undefined);
    assert.match(textToolProtocol.instructions([tool]), /^\n\nYou cannot call tools natively[\s\S]*search_knowledge/);
    const raw = '{"type":"tool","calls":[{"name":"search_knowledge","input":{"query":"q"}}]}';
    const action = textToolProtocol.read({ text: raw, toolCalls: [] }, { step: 2, allowTools: true });
    assert.deepEqual(action, {
      type: 'tool-calls',
      calls: [{ toolCallId: 'step2-0', toolName: 'search_knowledge', input: { query: 'q' } }],
      text: '',
      raw,
    });
    assert.deepEqual(
      textToolProtocol.read({ text: raw, toolCalls: [] }, { step: 2, allowTools: false }),
      { type: 'answer', text: raw, raw },
      'at a limit a tool request is no answer the loop can act on: shown as is',
    );
    assert.deepEqual(
      textToolProtocol.read({ text: '{"type":"final","answer":"Yes [E1]"}', toolCalls: [] }, { step: 2, allowTools: true }),
      { type: 'answer', text: 'Yes [E1]', raw: '{"type":"final","answer":"Yes [E1]"}' },
    );
    const invalid = textToolProtocol.read({ text: '{"type":"dance"}', toolCalls: [] }, { step: 3, allowTools: true });
    assert.equal(invalid.type, 'invalid');
    const messages: ModelMessage[] = [];
    if (action.type === 'tool-calls') textToolProtocol.appendToolCalls(messages, action);
    textToolProtocol.appendToolResults(messages, [outcome(true, 'found'), outcome(false, 'timed out')]);
    if (invalid.type === 'invalid') textToolProtocol.appendInvalid(messages, invalid);
    assert.deepEqual(messages, [
      { role: 'assistant', content: raw },
      { role: 'user', content: 'Result of search_knowledge (c1):\nfound\n\nResult of search_knowledge (c1):\nError: timed out' },
      { role: 'assistant', content: '{"type":"dance"}' },
      { role: 'user', content: `Error: ${invalid.type === 'invalid' ? invalid.error : ''}` },
    ]);
  });
});
