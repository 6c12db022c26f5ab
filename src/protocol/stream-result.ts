import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider';

/**
 * Streams an already-computed model result (for in-process models: offline, replay). Text goes out
 * sentence by sentence, as a person would see a real model's answer arrive.
 */
export function streamResult(result: LanguageModelV3GenerateResult): { stream: ReadableStream<LanguageModelV3StreamPart> } {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  result.content.forEach((part, i) => {
    if (part.type === 'text') {
      const id = `text-${i}`;
      parts.push({ type: 'text-start', id });
      for (const piece of part.text.match(/[^\n.!?]+[.!?]*\s*|\n+/g) ?? [part.text]) parts.push({ type: 'text-delta', id, delta: piece });
      parts.push({ type: 'text-end', id });
    } else parts.push(part as LanguageModelV3StreamPart);
  });
  parts.push({
    type: 'finish',
    usage: result.usage,
    finishReason: result.finishReason,
    ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
  });
  return {
    stream: new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}
