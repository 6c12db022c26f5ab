import type { ModelMessage } from 'ai';
import { callModel } from '../providers/call-model.ts';
import type { LanguageModelObject } from '../providers/index.ts';
import type { AgentEvent, Usage } from '../protocol/events.ts';
import type { ToolProtocol, TurnAction } from './tool-protocol/types.ts';
import type { AgentTool } from './tools/tool.ts';

export interface ModelTurnParams {
  model: LanguageModelObject;
  protocol: ToolProtocol;
  system: string;
  messages: ModelMessage[];
  tools: readonly AgentTool[];
  step: number;
  /** False at a limit: the model must answer now. */
  allowTools: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** What the context budget compacted of `messages` just before this call, reported on `model-output`. */
  compacted?: { results: number; tokensBefore: number; tokensAfter: number };
  emit: (event: AgentEvent) => void;
}

/**
 * One model turn of the loop: streams text and reasoning as events, records everything the model
 * produced (`model-output`, what a replay feeds back), and reads the turn through the protocol.
 * Model failures throw (DossierError with a remote-* code; AbortError on abort).
 */
export async function modelTurn(
  params: ModelTurnParams,
): Promise<{ action: TurnAction; usage: Usage; notFound: boolean; closest?: string[] }> {
  const { protocol, step, emit } = params;
  const started = performance.now();
  const result = await callModel({
    model: params.model,
    system: params.system,
    messages: params.messages,
    tools: protocol.declare(params.tools),
    toolChoice: params.allowTools ? 'auto' : 'none',
    abortSignal: params.signal,
    timeoutMs: params.timeoutMs,
    maxRetries: params.maxRetries,
    onTextDelta: protocol.streamsAnswer ? (delta: string) => emit({ type: 'text-delta', step, delta }) : undefined,
    onReasoningDelta: (delta: string) => emit({ type: 'thinking-delta', step, delta }),
  });
  const action = protocol.read(result, { step, allowTools: params.allowTools });
  if (!protocol.streamsAnswer && action.type === 'answer' && action.text) emit({ type: 'text-delta', step, delta: action.text });
  const usage = { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 };
  emit({
    type: 'model-output',
    step,
    text: result.text,
    toolCalls: result.toolCalls,
    usage: { ...result.usage },
    ms: Math.round(performance.now() - started),
    ...(result.metadata.notFound ? { notFound: true as const } : {}),
    ...(result.metadata.answeredBy ? { answeredBy: result.metadata.answeredBy } : {}),
    ...(result.metadata.questionRule ? { questionRule: result.metadata.questionRule } : {}),
    ...(result.metadata.closest ? { closest: result.metadata.closest } : {}),
    ...(params.compacted ? { compacted: params.compacted } : {}),
  });
  return { action, usage, notFound: result.metadata.notFound === true, closest: result.metadata.closest };
}
