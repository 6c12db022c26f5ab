import { z } from 'zod';
import { defuse } from '../../evidence/evidence-format.ts';
import type { AgentTool } from '../../agent/tools/tool.ts';
import { sharedPythonSandbox, type PythonResult, type PythonSandbox } from './sandbox.ts';

const input = z.object({
  code: z.string().min(1).max(100_000).describe('Python 3 source to run; print() what you want to see'),
});

export type PythonToolInput = z.infer<typeof input>;

export interface PythonToolOptions {
  /** The sandbox to run in; default the process's shared one (sandbox.ts). */
  sandbox?: PythonSandbox;
  timeoutMs?: number;
  memoryMb?: number;
}

/** Characters of output the model sees per token of its result budget (output is dense). */
const CHARS_PER_TOKEN = 3;

/** Head of stdout (results come first), tail of stderr (a traceback ends with what went wrong). */
function cut(text: string, chars: number, keep: 'head' | 'tail'): string {
  if (text.length <= chars) return text;
  const dropped = `[… ${text.length - chars} more characters]`;
  return keep === 'head' ? `${text.slice(0, chars)}\n${dropped}` : `${dropped}\n${text.slice(-chars)}`;
}

/** A Markdown fence the text cannot close (longer than any backtick run in it); fence markers defused. */
function fenced(label: string, text: string): string {
  const safe = defuse(text.replace(/\n$/, ''));
  const longest = Math.max(2, ...[...safe.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${label}:\n${fence}text\n${safe}\n${fence}`;
}

export function formatPythonResult(result: PythonResult, resultTokens: number): string {
  const budget = Math.max(400, resultTokens * CHARS_PER_TOKEN);
  const parts: string[] = [];
  if (result.stdout) parts.push(fenced('stdout', cut(result.stdout, result.stderr ? Math.floor(budget * 0.6) : budget, 'head')));
  if (result.stderr) parts.push(fenced('stderr', cut(result.stderr, result.stdout ? Math.floor(budget * 0.4) : budget, 'tail')));
  if (!result.stdout && !result.stderr) parts.push('(no output: print() the values you want to see)');
  parts.push(result.error ? `error: ${defuse(result.error)}` : `ok (${Math.round(result.ms)} ms)`);
  return parts.join('\n\n');
}

/** The `python` tool: runs model-written code in the sandbox; a Python error is a result the model reads, not a failure. */
export function createPythonTool(options: PythonToolOptions = {}): AgentTool<PythonToolInput> {
  return {
    name: 'python',
    description:
      'Run Python 3 code (standard library only: math, statistics, fractions, decimal, datetime, json, re, collections, itertools, …) ' +
      'to calculate, count, convert or check something exactly. There are no files, no network, no packages to install and no state ' +
      'kept between calls, so put everything the code needs into it and print() the results you want to see. Time and memory are limited.',
    inputSchema: input,
    async execute({ code }, context) {
      context.signal.throwIfAborted();
      const sandbox = options.sandbox ?? sharedPythonSandbox();
      // An abort terminates the worker, and the call rejects with an `aborted` error.
      const result = await sandbox.runPython(code, { timeoutMs: options.timeoutMs, memoryMb: options.memoryMb, signal: context.signal });
      // What it printed joins the ledger as a computed result (P1 …): support for the numbers it produced.
      const computed =
        !result.error && result.stdout.trim()
          ? context.ledger.addComputed({ text: result.stdout, input: code, step: context.step, tool: 'python' })
          : undefined;
      return {
        raw: computed ? { ...result, id: computed.id } : result,
        forModel:
          (computed
            ? `${computed.id} (a computed result: the numbers it printed count as supported; cite the evidence of its inputs)\n`
            : '') + formatPythonResult(result, context.resultTokens),
        evidence: [],
        newEvidence: [],
        summary: result.error
          ? `python failed: ${result.error.slice(0, 160)}`
          : `${computed ? `${computed.id}: ` : ''}python ran in ${Math.round(result.ms)} ms (${result.stdout.length} characters of output)`,
      };
    },
  };
}

/** The `python` tool with the defaults (10 s, 256 MB) on the shared sandbox. */
export const pythonTool: AgentTool<PythonToolInput> = createPythonTool();
