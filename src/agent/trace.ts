import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { DossierError } from '../errors/index.ts';
import { providerMetadataOf } from '../protocol/model-metadata.ts';
import { streamResult } from '../protocol/stream-result.ts';
import type { AgentEvent, ToolCallRecord, Usage } from '../protocol/events.ts';

/**
 * The JSONL trace: one line per event with its time. `model-output` lines hold everything the
 * model said in a turn, so `dossier replay` can rerun the run without the model.
 */
export class TraceWriter {
  constructor(readonly path: string) {
    writeFileSync(path, '');
  }

  /** Appends synchronously: a run that crashes keeps every event before the crash. */
  write(event: AgentEvent): void {
    appendFileSync(this.path, `${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
  }

  async close(): Promise<void> {}
}

export type TracedEvent = AgentEvent & { time: string };

export function readTrace(path: string): TracedEvent[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new DossierError('bad-input', `trace file not found: ${path}`);
  }
  const lines = text.split('\n').filter((line) => line.trim());
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as TracedEvent;
    } catch {
      const cut = i === lines.length - 1 && !text.endsWith('\n');
      throw new DossierError(
        'bad-input',
        cut ? `trace ${path} is truncated: its last line is cut off` : `trace ${path} line ${i + 1} is not JSON`,
      );
    }
  });
}

/** A model that answers with the turns recorded in a trace, in order. */
export class ReplayModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'dossier-replay';
  readonly modelId: string;
  readonly supportedUrls = {};
  private next = 0;

  constructor(
    private readonly outputs: {
      text: string;
      toolCalls: ToolCallRecord[];
      usage: Usage;
      notFound?: true;
      answeredBy?: string;
      questionRule?: string;
      closest?: string[];
    }[],
    modelId = 'replay',
  ) {
    this.modelId = modelId;
  }

  static fromTrace(events: readonly TracedEvent[]): ReplayModel {
    const start = events.find((event) => event.type === 'run-start');
    const outputs = events.flatMap((event) =>
      event.type === 'model-output'
        ? [
            {
              text: event.text,
              toolCalls: event.toolCalls,
              usage: event.usage,
              notFound: event.notFound,
              answeredBy: event.answeredBy,
              questionRule: event.questionRule,
              closest: event.closest,
            },
          ]
        : [],
    );
    if (!start || outputs.length === 0) throw new DossierError('bad-input', 'the trace has no run-start or no model outputs to replay');
    return new ReplayModel(outputs, start.type === 'run-start' ? start.model : 'replay');
  }

  async doGenerate(_options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const output = this.outputs[this.next++];
    if (!output)
      throw new DossierError(
        'remote-failed',
        `the trace has only ${this.outputs.length} model turns; the replay asked for more (the index changed since the run?)`,
      );
    const content: LanguageModelV3Content[] = [
      ...(output.text ? [{ type: 'text' as const, text: output.text }] : []),
      ...output.toolCalls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.stringify(call.input ?? {}),
      })),
    ];
    return {
      content,
      finishReason: { unified: output.toolCalls.length ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: { total: output.usage.inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: output.usage.outputTokens, text: undefined, reasoning: undefined },
      },
      providerMetadata: providerMetadataOf(output),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions) {
    return streamResult(await this.doGenerate(options));
  }
}
