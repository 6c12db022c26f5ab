import { nativeToolProtocol } from './native.ts';
import { textToolProtocol } from './text.ts';
import type { ToolProtocol } from './types.ts';

export type { ToolProtocol, TurnAction } from './types.ts';
export { nativeToolProtocol } from './native.ts';
export { textToolProtocol } from './text.ts';
export { parseTextAction, textProtocolInstructions } from './text-actions.ts';

/** The protocol a model gets: its own tool calls when it has them, JSON actions in plain text otherwise. */
export function toolProtocolFor(model: { supportsTools: boolean }): ToolProtocol {
  return model.supportsTools ? nativeToolProtocol : textToolProtocol;
}
