import type { ToolProtocol } from './types.ts';

/** The model's own tool calls: tools declared on the call, results as `tool` messages. */
export const nativeToolProtocol: ToolProtocol = {
  name: 'native',
  streamsAnswer: true,
  instructions: () => '',
  // At a limit the tools stay declared (providers reject tool history without them); the call's toolChoice forbids using them.
  declare: (tools) =>
    Object.fromEntries(tools.map((tool) => [tool.name, { description: tool.description, inputSchema: tool.inputSchema }])),
  read({ text, toolCalls }, { allowTools }) {
    return allowTools && toolCalls.length > 0
      ? { type: 'tool-calls', calls: toolCalls, text, raw: text }
      : { type: 'answer', text, raw: text };
  },
  appendToolCalls(messages, action) {
    messages.push({
      role: 'assistant',
      content: [
        ...(action.text ? [{ type: 'text' as const, text: action.text }] : []),
        // Unparsable arguments go back as {}: the Anthropic Messages API rejects any other input in the history.
        ...action.calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.inputError || typeof call.input !== 'object' || call.input === null ? {} : call.input,
        })),
      ],
    });
  },
  appendToolResults(messages, outcomes) {
    messages.push({
      role: 'tool',
      content: outcomes.map((outcome) => ({
        type: 'tool-result' as const,
        toolCallId: outcome.call.toolCallId,
        toolName: outcome.call.toolName,
        output: outcome.ok ? { type: 'text' as const, value: outcome.text } : { type: 'error-text' as const, value: outcome.text },
      })),
    });
  },
  appendInvalid() {
    // Native turns are always readable: malformed calls arrive as calls with an inputError.
  },
};
