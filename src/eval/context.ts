import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { parseEvidence } from '../evidence/evidence-format.ts';
import { EvidenceLedger } from '../evidence/ledger.ts';
import { runAgent } from '../agent/run-agent.ts';
import { streamResult } from '../protocol/stream-result.ts';
import { countTokens } from '../text/tokenize.ts';
import { corpusFolders, loadDocsQuestions, type DocsQuestion } from './docs.ts';
import { indexHotpot, loadHotpot, normalizeAnswer } from './hotpotqa.ts';

/**
 * `dossier eval context`: what a model is shown of what retrieval found. A scripted model calls
 * `search_knowledge` once with each question, through the real agent loop, and the tool result it
 * is handed is compared with the full top-k chunks of that same search: is a gold answer string in
 * the text shown (`answerShown`), in the chunks retrieved (`answerRetrieved`), or retrieved but not
 * shown (the loss this measures)? Plus the characters and tokens shown per search, and the shares
 * of passages cut and of passages carrying an address (document id and chunk ordinal).
 */
export interface ContextQuestion {
  id: string;
  question: string;
  /**
   * The gold answer: every item must be in the text, an item being a string or a list of
   * alternatives (any one will do); empty for a question the documents do not answer (it counts
   * for size only).
   */
  answers: Array<string | readonly string[]>;
  /** The collection the question searches (docs sets: its corpus). */
  collection?: string;
}

export interface ContextOutcome {
  id: string;
  answerShown: boolean;
  answerRetrieved: boolean;
  chars: number;
  tokens: number;
  passages: number;
  cut: number;
  addressed: number;
  references: number;
}

export interface ContextReport {
  questionsFile: string;
  questions: number;
  /** Questions with a gold answer string (the shares below are over these). */
  answerable: number;
  answerShown: number;
  answerRetrieved: number;
  /** Questions whose answer was in the retrieved chunks but not in the text shown. */
  retrievedNotShown: number;
  charsPerSearch: number;
  tokensPerSearch: number;
  /** Share of the passages shown that were cut. */
  passagesCut: number;
  /** Share of the passages shown that carry their document id and chunk ordinal. */
  passagesAddressed: number;
  outcomes: ContextOutcome[];
}

/**
 * The questions of a context evaluation: a docs set (`.json`, gold in `answerContains`), a HotpotQA
 * file (`.jsonl` with `question_text`), or docs rows in JSONL (`{id, corpus, question, …}`) whose gold
 * strings come from `answersFile` (`{"answers": {"<id>": [...]}}`) when the rows carry none.
 */
export function loadContextQuestions(file: string, answersFile?: string): { questions: ContextQuestion[]; kind: 'docs' | 'hotpot' } {
  if (!existsSync(file)) throw new DossierError('not-found', `no questions file ${file}`);
  const gold = answersFile ? readAnswers(answersFile) : undefined;
  if (extname(file) === '.json') {
    const questions = loadDocsQuestions(file).map((q) => ({
      id: q.id,
      question: q.question,
      answers: gold?.get(q.id) ?? (q.notFound ? [] : (q.answerContains ?? [])),
      collection: q.corpus,
    }));
    return { kind: 'docs', questions };
  }
  if (extname(file) !== '.jsonl')
    throw new DossierError('bad-input', `eval context reads a docs questions file (.json) or JSON lines (.jsonl), not ${file}`);
  const first = readFileSync(file, 'utf8')
    .split('\n')
    .find((line) => line.trim());
  if (first?.includes('"question_text"')) {
    return {
      kind: 'hotpot',
      questions: loadHotpot(file).questions.map((q) => ({ id: q.id, question: q.question, answers: q.answers.length ? [q.answers] : [] })),
    };
  }
  const questions = readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => [line, i] as const)
    .filter(([line]) => line.trim())
    .map(([line, i]) => {
      let row: { id?: unknown; corpus?: unknown; question?: unknown; answerContains?: ContextQuestion['answers'] };
      try {
        row = JSON.parse(line);
      } catch {
        throw new DossierError('bad-input', `${file} line ${i + 1} is not JSON`);
      }
      if (typeof row.id !== 'string' || typeof row.corpus !== 'string' || typeof row.question !== 'string')
        throw new DossierError('bad-input', `${file} line ${i + 1} needs string "id", "corpus" and "question"`);
      const answers = row.answerContains ?? gold?.get(row.id);
      if (!answers)
        throw new DossierError(
          'bad-input',
          `${file} line ${i + 1} (${row.id}) has no gold answer: give answerContains, or --answers FILE naming it`,
        );
      return { id: row.id, question: row.question, answers, collection: row.corpus };
    });
  return { kind: 'docs', questions };
}

function readAnswers(file: string): Map<string, ContextQuestion['answers']> {
  if (!existsSync(file)) throw new DossierError('not-found', `no answers file ${file}`);
  let data: { answers?: Record<string, ContextQuestion['answers']> };
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DossierError('bad-input', `${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof data.answers !== 'object' || data.answers === null)
    throw new DossierError('bad-input', `${file} needs an "answers" object: question id → gold strings`);
  return new Map(Object.entries(data.answers));
}

/** Indexes what the questions ask about: each docs corpus into its collection, or the HotpotQA pool (once). */
export async function indexContextCorpus(
  dossier: Dossier,
  file: string,
  questions: readonly ContextQuestion[],
  kind: 'docs' | 'hotpot',
  corpusRoot?: string,
  onProgress?: (phase: string, done: number, total: number) => void,
): Promise<void> {
  if (kind === 'hotpot') {
    const data = loadHotpot(file);
    if ((await dossier.stats()).documents >= data.paragraphs.size) return; // the pool is indexed once (--db)
    await indexHotpot(dossier, data, (done, total) => onProgress?.('index', done, total));
    return;
  }
  const folders = corpusFolders(questions.map((q) => ({ corpus: q.collection! })) as DocsQuestion[], corpusRoot);
  let done = 0;
  for (const [name, folder] of folders) {
    await dossier.ingest([folder], { collection: name });
    onProgress?.('index', ++done, folders.size);
  }
}

/**
 * The scripted model: its first turn searches with the question, its second records the tool
 * result it was handed (and the prompt and tools around it) and ends the run.
 */
export class SearchOnceModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'dossier-eval';
  readonly modelId = 'search-once';
  readonly supportedUrls = {};
  /** What the model was shown on its second turn. */
  seen: { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[]; toolResult: string } | undefined;

  constructor(private readonly query: string) {}

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const results = options.prompt
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .filter((part) => part.type === 'tool-result');
    const usage = {
      inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 0, text: 0, reasoning: undefined },
    };
    if (results.length === 0) {
      return {
        content: [
          { type: 'tool-call', toolCallId: 'search-1', toolName: 'search_knowledge', input: JSON.stringify({ query: this.query }) },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    }
    const output = results[0].output;
    const toolResult = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
    this.seen = { prompt: options.prompt, tools: (options.tools ?? []).filter((tool) => tool.type === 'function'), toolResult };
    return { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions) {
    return streamResult(await this.doGenerate(options));
  }
}

function holdsAnswer(text: string, answers: ContextQuestion['answers']): boolean {
  const haystack = normalizeAnswer(text);
  const holds = (answer: string) => {
    const needle = normalizeAnswer(answer);
    return needle.length > 0 && haystack.includes(needle);
  };
  return answers.length > 0 && answers.every((item) => (typeof item === 'string' ? holds(item) : item.some(holds)));
}

/** One question: the search the scripted model makes, what it was shown, and what the search found. */
export async function measureContext(dossier: Dossier, question: ContextQuestion): Promise<ContextOutcome & { shown: string }> {
  const model = new SearchOnceModel(question.question);
  const ledger = new EvidenceLedger();
  await runAgent({
    knowledge: dossier,
    question: question.question,
    model: { model, id: 'search-once', supportsTools: true },
    ledger,
    maxSteps: 2,
    scope: question.collection ? { collections: [question.collection] } : undefined,
  });
  const shown = model.seen?.toolResult ?? '';
  // Everything a shown block may carry of a chunk: its title, heading path and text.
  const retrieved = ledger
    .entries()
    .map(({ chunk }) => [chunk.title, ...chunk.headingPath, chunk.text].join('\n'))
    .join('\n');
  const blocks = parseEvidence(shown);
  return {
    id: question.id,
    answerShown: holdsAnswer(shown, question.answers),
    answerRetrieved: holdsAnswer(retrieved, question.answers),
    chars: shown.length,
    tokens: countTokens(shown),
    passages: blocks.length,
    cut: blocks.filter((block) => block.cut).length,
    addressed: blocks.filter((block) => block.documentId !== undefined && block.ordinal !== undefined).length,
    references: blocks.filter((block) => block.reference).length,
    shown,
  };
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

export async function runContextEval(
  dossier: Dossier,
  file: string,
  options: {
    answersFile?: string;
    corpusRoot?: string;
    limit?: number;
    offset?: number;
    onProgress?: (phase: string, done: number, total: number) => void;
  } = {},
): Promise<ContextReport> {
  const { questions: all, kind } = loadContextQuestions(file, options.answersFile);
  await indexContextCorpus(dossier, file, all, kind, options.corpusRoot, options.onProgress);
  const offset = options.offset ?? 0;
  const questions = all.slice(offset, options.limit === undefined ? undefined : offset + options.limit);
  const outcomes: ContextOutcome[] = [];
  for (const question of questions) {
    const { shown: _shown, ...outcome } = await measureContext(dossier, question);
    outcomes.push(outcome);
    options.onProgress?.('questions', outcomes.length, questions.length);
  }
  const answerable = outcomes.filter((_, i) => questions[i].answers.length > 0);
  const passages = outcomes.reduce((sum, o) => sum + o.passages, 0);
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  return {
    questionsFile: file,
    questions: outcomes.length,
    answerable: answerable.length,
    answerShown: answerable.filter((o) => o.answerShown).length,
    answerRetrieved: answerable.filter((o) => o.answerRetrieved).length,
    retrievedNotShown: answerable.filter((o) => o.answerRetrieved && !o.answerShown).length,
    charsPerSearch: round(mean(outcomes.map((o) => o.chars)), 1),
    tokensPerSearch: round(mean(outcomes.map((o) => o.tokens)), 1),
    passagesCut: round(passages ? outcomes.reduce((sum, o) => sum + o.cut, 0) / passages : 0),
    passagesAddressed: round(passages ? outcomes.reduce((sum, o) => sum + o.addressed, 0) / passages : 0),
    outcomes,
  };
}
