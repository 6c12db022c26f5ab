import type { ToolCallRecord } from '../../protocol/events.ts';
import type { AgentTool } from '../tools/tool.ts';
import { z } from 'zod';

/**
 * Tool use for models without native tool calling: the model replies with one JSON object,
 *   {"type":"tool","calls":[{"name":"search_knowledge","input":{"query":"…"}}]}   or
 *   {"type":"final","answer":"… [E1]"}
 * Slightly malformed JSON (code fences, trailing commas, single quotes, unquoted keys, missing
 * closing brackets) is repaired; anything else goes back to the model as a clear error.
 */
export function textProtocolInstructions(tools: readonly AgentTool[]): string {
  const described = tools
    .map((tool) => `- ${tool.name}: ${tool.description}\n  input JSON schema: ${JSON.stringify(z.toJSONSchema(tool.inputSchema))}`)
    .join('\n');
  return [
    'You cannot call tools natively. Reply with exactly one JSON object and nothing else:',
    '{"type":"tool","calls":[{"name":"<tool>","input":{…}}]} to call one or more tools, or',
    '{"type":"final","answer":"<your answer with [E1] citations>"} to answer.',
    'Tools:',
    described,
  ].join('\n');
}

export type TextAction = { type: 'tool'; calls: ToolCallRecord[] } | { type: 'final'; answer: string } | { type: 'invalid'; error: string };

export function parseTextAction(text: string, idPrefix: string): TextAction {
  const candidate = extractJson(text);
  if (candidate === undefined) {
    // A plain-prose reply is taken as the answer: refusing it would only waste a step.
    return text.trim() ? { type: 'final', answer: text.trim() } : { type: 'invalid', error: 'empty reply; answer with one JSON object' };
  }
  const value = parseLenient(candidate);
  if (value === undefined)
    return { type: 'invalid', error: `your reply is not valid JSON (${candidate.slice(0, 80)}…); answer with one JSON object` };
  if (typeof value !== 'object' || value === null) return { type: 'invalid', error: 'the JSON must be an object with "type"' };
  const action = value as Record<string, unknown>;
  if (action.type === 'final' && typeof action.answer === 'string') return { type: 'final', answer: action.answer };
  if (action.type === 'tool') {
    const calls = Array.isArray(action.calls) ? action.calls : action.name ? [action] : [];
    if (calls.length === 0) return { type: 'invalid', error: '"type":"tool" needs "calls":[{"name":…,"input":{…}}]' };
    return {
      type: 'tool',
      calls: calls.map((call, i) => {
        const record = (call ?? {}) as Record<string, unknown>;
        return {
          toolCallId: `${idPrefix}-${i}`,
          toolName: String(record.name ?? record.tool ?? ''),
          input: record.input ?? record.arguments ?? {},
        };
      }),
    };
  }
  return { type: 'invalid', error: 'the JSON needs "type":"tool" with "calls", or "type":"final" with "answer"' };
}

/** The outermost {...} of the reply (inside a code fence if there is one), closing what was left open. */
function extractJson(text: string): string | undefined {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)(?:```|$)/);
  const body = fenced ? fenced[1] : text;
  const start = body.indexOf('{');
  if (start === -1) return undefined;
  let depth = 0;
  let inString: string | null = null;
  for (let i = start; i < body.length; i++) {
    const char = body[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === inString) inString = null;
      continue;
    }
    if (char === '"' || char === "'") inString = char;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return body.slice(start, i + 1);
    }
  }
  return body.slice(start); // unbalanced: let the repair close it
}

function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // fall through to repairs
  }
  let repaired = text
    .replace(/'([^'\\]*(?:\\.[^'\\]*)*)'/g, (_, inner: string) => JSON.stringify(inner)) // single-quoted strings
    .replace(/([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:/g, '$1"$2":') // unquoted keys
    .replace(/,\s*([}\]])/g, '$1'); // trailing commas
  // Close brackets the model left open, innermost first.
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < repaired.length; i++) {
    const char = repaired[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') stack.pop();
  }
  if (inString) repaired += '"';
  repaired += stack.reverse().join('');
  try {
    return JSON.parse(repaired);
  } catch {
    return undefined;
  }
}
