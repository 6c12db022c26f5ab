import type { ModelMessage } from 'ai';
import type { ModelTool } from '../../providers/call-model.ts';
import type { ToolCallRecord } from '../../protocol/events.ts';
import type { ToolOutcome } from '../tool-runner.ts';
import type { AgentTool } from '../tools/tool.ts';

/** What the loop makes of one model turn. `raw` is the model's text as it came. */
export type TurnAction =
  | { type: 'tool-calls'; calls: ToolCallRecord[]; text: string; raw: string }
  | { type: 'answer'; text: string; raw: string }
  /** The reply could not be read (text protocol only); the error goes back to the model. */
  | { type: 'invalid'; error: string; raw: string };

/**
 * How tools are offered to a model and how its turns are read: `native` (the model's own tool
 * calls) or `text` (JSON actions in plain text, for models without tool calling).
 */
export interface ToolProtocol {
  readonly name: 'native' | 'text';
  /** Text the system prompt adds to offer the tools ('' when the call declares them). */
  instructions(tools: readonly AgentTool[]): string;
  /** Tools declared on the model call; undefined when they are offered in the prompt. */
  declare(tools: readonly AgentTool[]): Record<string, ModelTool> | undefined;
  /** The model's streamed text is the answer itself (false: it must be parsed before it is shown). */
  readonly streamsAnswer: boolean;
  /** `allowTools` false: the turn must answer (a limit was reached); tool calls are not taken. */
  read(output: { text: string; toolCalls: ToolCallRecord[] }, turn: { step: number; allowTools: boolean }): TurnAction;
  appendToolCalls(messages: ModelMessage[], action: Extract<TurnAction, { type: 'tool-calls' }>): void;
  appendToolResults(messages: ModelMessage[], outcomes: readonly ToolOutcome[]): void;
  appendInvalid(messages: ModelMessage[], action: Extract<TurnAction, { type: 'invalid' }>): void;
}
