import { parseTextAction, textProtocolInstructions } from './text-actions.ts';
import type { ToolProtocol } from './types.ts';

/** JSON actions in plain text (text-protocol.ts), for models without tool calling; results as user messages. */
export const textToolProtocol: ToolProtocol = {
  name: 'text',
  streamsAnswer: false,
  instructions: (tools) => `\n\n${textProtocolInstructions(tools)}`,
  declare: () => undefined,
  read({ text }, { step, allowTools }) {
    const action = parseTextAction(text, `step${step}`);
    if (action.type === 'tool')
      return allowTools ? { type: 'tool-calls', calls: action.calls, text: '', raw: text } : { type: 'answer', text, raw: text };
    if (action.type === 'final') return { type: 'answer', text: action.answer, raw: text };
    return { type: 'invalid', error: action.error, raw: text };
  },
  appendToolCalls(messages, action) {
    messages.push({ role: 'assistant', content: action.raw });
  },
  appendToolResults(messages, outcomes) {
    messages.push({
      role: 'user',
      content: outcomes
        .map((o) => `Result of ${o.call.toolName} (${o.call.toolCallId}):\n${o.ok ? o.text : `Error: ${o.text}`}`)
        .join('\n\n'),
    });
  },
  appendInvalid(messages, action) {
    messages.push({ role: 'assistant', content: action.raw || '(empty)' }, { role: 'user', content: `Error: ${action.error}` });
  },
};
