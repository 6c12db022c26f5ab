import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { checkClaim, critiqueDraft, markFindings, hasFindings, type Critique, type EvidenceText } from '../../evidence/claims.ts';
import { parseEvidence } from '../../evidence/evidence-format.ts';
import { analyseQuestion } from '../question/question.ts';
import { NOT_FOUND_LEAD } from '../answer/not-found.ts';
import { hasCitationMarker, stripCitationMarkers } from '../../protocol/citations.ts';

/**
 * The offline model as research planner. Like the RAG planner it keeps no state: every decision
 * is read back from the prompt (the tool calls made and their results). In order:
 * 1. `plan`: the brief and the sub-questions (the question split at its parts, or the question
 *    itself when it has one part);
 * 2. `rag` for every sub-question, all at once (they run in parallel);
 * 3. for a calculation, `python` recomputes the nested answer's arithmetic, exactly, in the sandbox;
 * 4. `critique` of the drafted report;
 * 5. the report, with what the critique found marked: the direct answer first, then a section per
 *    sub-question, every claim cited, open sub-questions listed.
 * When the run says the budget is nearly spent, it writes the report from what it has.
 */

interface Call {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result?: string;
}

interface SubAnswer {
  id: string;
  question: string;
  status: string;
  answer: string;
}

function parseInput(input: unknown): Record<string, unknown> {
  if (typeof input !== 'string') return (input ?? {}) as Record<string, unknown>;
  try {
    return JSON.parse(input) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function readCalls(prompt: LanguageModelV3Prompt): Call[] {
  const calls = new Map<string, Call>();
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content)
        if (part.type === 'tool-call')
          calls.set(part.toolCallId, { id: part.toolCallId, name: part.toolName, input: parseInput(part.input) });
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const call = calls.get(part.toolCallId);
        if (call)
          call.result = part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify(part.output);
      }
    }
  }
  return [...calls.values()];
}

/** "Halvorsen Instruments'" and "Marit's": the possessive of a name. */
export function possessive(name: string): string {
  return /s$/i.test(name) ? `${name}'` : `${name}'s`;
}

const RELATIVE_CLAUSE =
  /^(?:which|who|whom|whose|where|when|that)\s+(?:is|was|are|were|has|had|have|can|could|will|would|may|might|did|does|do|also|\w+ed|\w+s)\b/i;
const WH_START = /^(?:who|whom|whose|what|when|where|which|why|how|in (?:which|what)|at (?:which|what)|for (?:which|what))\b/i;

/**
 * The parts of a question asked at once ("Who founded X, in which year, and who leads it today?"
 * → three sub-questions): pieces after a comma or semicolon that each open with a question word.
 * A plain "and who" is not a split: "the writer of X and who died in 2007" describes one person.
 * A part without its own subject borrows the first part's ("in which year" → "In which year:
 * founded X?"); "it", "its" and "they" become the first part's subject.
 */
export function decomposeQuestion(question: string): string[] {
  const q = question.trim().replace(/\?+$/, '');
  const pieces: string[] = [];
  const split = q.split(/([,;]\s*(?:and\s+)?)/i);
  for (let i = 0; i < split.length; i += 2) {
    const piece = split[i].trim();
    const separator = split[i - 1] ?? '';
    // ", which was founded in 1990" after a name is a relative clause about it, not a new question
    // (", and who leads it" is one): it stays with the piece before it.
    if (pieces.length && !/and\s*$/i.test(separator) && RELATIVE_CLAUSE.test(piece)) pieces[pieces.length - 1] += `${separator}${piece}`;
    else if (piece) pieces.push(piece);
  }
  if (pieces.length < 2 || !WH_START.test(pieces[0]) || !pieces.slice(1).every((p) => WH_START.test(p))) return [question.trim()];
  const first = pieces[0];
  const subject = subjectOf(first);
  const rest = first.replace(WH_START, '').trim();
  const parts = pieces.map((piece, i) => {
    let part = piece;
    if (i > 0 && subject) part = part.replace(/\b(?:it|they|them)\b/i, subject).replace(/\b(?:its|their)\b/i, possessive(subject));
    const words = part.split(/\s+/).length;
    if (i > 0 && words <= 3 && !(subject && part.includes(subject))) part = `${part}: ${rest}`;
    // A part that names nothing of its own asks about the question's subject: it keeps it, or its search drifts to another thing's page.
    else if (i > 0 && subject && !part.includes(subject) && analyseQuestion(`${part}?`).entities.length === 0)
      part = `${part} in ${subject}`;
    return `${part.charAt(0).toUpperCase()}${part.slice(1)}?`;
  });
  return parts.length <= 4 ? parts : [question.trim()];
}

/**
 * What a question part is about: the named thing its verb's auxiliary introduces ("which versions
 * does Black support" → Black), else its first named thing.
 */
function subjectOf(part: string): string | undefined {
  const entities = analyseQuestion(`${part}?`).entities;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const afterAuxiliary = entities.find((entity) =>
    new RegExp(`\\b(?:does|do|did|is|are|was|were|can|could|should|will|would|has|have|had)\\s+(?:the\\s+)?${escape(entity)}\\b`, 'i').test(
      part,
    ),
  );
  const subject = afterAuxiliary ?? entities[0];
  // After "is"/"are", the name may open a noun phrase: "Why is HTML autoescaping not on …" is about
  // HTML autoescaping. A following noun (a nominal ending: -ing, -ion, -ment, -ity, -er …) belongs to it.
  const phrase =
    subject &&
    new RegExp(`\\b(?:is|are|was|were)\\s+(?:the\\s+)?${escape(subject)}\\s+([a-z]+(?:ing|ion|ment|ance|ence|ity|er|or|ism))\\b`).exec(
      part,
    )?.[1];
  return phrase ? `${subject} ${phrase}` : subject;
}

/** The nested answers, from the rag results ("SUB-QUESTION S2 (rag:2): …" … "ANSWER:" … "END ANSWER"). */
function subAnswers(calls: Call[]): SubAnswer[] {
  const out: SubAnswer[] = [];
  for (const call of calls) {
    if (call.name !== 'rag' || !call.result) continue;
    const head = /^SUB-QUESTION (\S+) \(([^)]+)\): (.*)$/m.exec(call.result);
    const status = /^RESULT: (.*?)(?: \(finish reason [^)]*\))?$/m.exec(call.result)?.[1] ?? 'failed';
    const answer = /\nANSWER:\n([\s\S]*?)\nEND ANSWER/.exec(call.result)?.[1]?.trim() ?? '';
    out.push({
      id: head?.[1] !== '-' && head?.[1] ? head[1] : String(call.input.subQuestion ?? head?.[2] ?? ''),
      question: head?.[3] ?? String(call.input.question ?? ''),
      status,
      answer,
    });
  }
  return out;
}

/** "55.2 − 48.0 = 7.2 million euros [E1][E2]": the expression, the shown result, the rest. */
const CALCULATION_LINE = /^(\(?[\d.,\s()+\-−×*/÷]+?)\s*=\s*(-?[\d.,]+)(%?)(.*?)(\s*(?:\[[^\]]*\])+)\s*(.*)$/;

/** Python that recomputes a calculation line exactly (decimals, rounded as the line shows its result). */
export function pythonFor(line: string): string | undefined {
  const match = CALCULATION_LINE.exec(line.trim());
  if (!match) return undefined;
  const [, expression, shown, percent] = match;
  const places = shown.includes('.') ? shown.split('.')[1].length : 0;
  const translated = expression
    .replace(/−/g, '-')
    .replace(/×/g, '*')
    .replace(/÷/g, '/')
    .replace(/\d+(?:,\d{3})*(?:\.\d+)?/g, (n) => `D('${n.replace(/,/g, '')}')`);
  if (!/^[\sD('\d.)+\-*/]+$/.test(translated)) return undefined;
  const scaled = percent ? `(${translated}) * 100` : translated;
  return [
    'from decimal import Decimal as D, ROUND_HALF_UP',
    `value = ${scaled}`,
    `print("RESULT=" + str(value.quantize(D(1).scaleb(-${places}), rounding=ROUND_HALF_UP)))`,
  ].join('\n');
}

/** The calculation line with the sandbox's result in place of the reader's. */
function withComputed(line: string, result: string): string {
  const match = CALCULATION_LINE.exec(line.trim());
  if (!match) return line;
  const [, expression, , percent, unit, citations, rest] = match;
  return `${expression.trim()} = ${result}${percent}${unit}${citations} (computed in the Python sandbox)${rest ? ` ${rest}` : ''}`;
}

/**
 * A sub-answer's direct answer: its first line, carrying the citations of the lines that support it
 * when it has none of its own (a comparison's winner, "2024", is followed by the cited values).
 */
function firstLine(answer: string): string {
  const [first = '', ...rest] = answer.split('\n').map((line) => line.trim());
  // A how-to answer opens with its code block: that block, whole, is its direct answer.
  if (first.startsWith('```'))
    return answer
      .slice(0, answer.indexOf('```', 3) + 3 + (/^[^\n]*/.exec(answer.slice(answer.indexOf('```', 3) + 3))?.[0].length ?? 0))
      .trim();
  if (hasCitationMarker(first) || first.startsWith('Not found')) return first;
  const ids = [...new Set(rest.flatMap((line) => [...line.matchAll(/\b(E\d+)\b/g)].map((m) => m[1])))].slice(0, 3);
  return ids.length ? `${first} [${ids.join(', ')}]` : first;
}

/** A sub-answer whose first line gets the citations of its support when it has none. */
function withCitedLead(answer: string): string {
  if (answer.trimStart().startsWith('```')) return answer;
  return [firstLine(answer), ...answer.split('\n').slice(1)].join('\n');
}

/** The report: the direct answer, a section per sub-question, what is open. */
export function composeReport(question: string, answers: SubAnswer[], computed?: string): string {
  const found = answers.filter((a) => a.status === 'answered');
  const open = answers.filter((a) => a.status !== 'answered');
  // Several parts: their direct answers in one line; a code block stands on its own lines.
  const leads = found.map((a) => firstLine(a.answer));
  const lead =
    found.length === 0
      ? answers.length === 1 && answers[0].answer
        ? firstLine(answers[0].answer)
        : `${NOT_FOUND_LEAD}: none of the sub-questions could be answered from the evidence.`
      : found.length === 1 || found[0].question === question
        ? leads[0]
        : leads.some((l) => l.includes('\n'))
          ? leads.join('\n')
          : leads.map((l) => l.replace(/\.$/, '')).join('; ');
  const direct =
    computed && found.length > 0 && pythonFor(firstLine(found[0].answer)) ? withComputed(firstLine(found[0].answer), computed) : lead;
  const sections = answers.map((a) =>
    [`## ${a.id}. ${a.question}`, a.answer ? withCitedLead(a.answer) : `${NOT_FOUND_LEAD} (${a.status}).`].join('\n'),
  );
  const openLines = open.map((a) => `Open: ${a.id}: ${a.question} (${a.status})`);
  return [direct, '', ...sections.flatMap((s) => [s, '']), ...openLines].join('\n').trim();
}

/** Each claim the critique found unsupported, cited instead to the first passage that supports it (when one does). */
export function reciteFromEvidence(report: string, critique: Critique, evidence: Map<string, string>): string {
  const lookup: EvidenceText = (id) => evidence.get(id);
  let out = report;
  for (const check of critique.checks) {
    if (check.verdict === 'supported') continue;
    const bare = stripCitationMarkers(check.claim).trimEnd();
    const support = [...evidence.keys()].find((id) => checkClaim(`${bare} [${id}]`, [id], lookup).verdict === 'supported');
    if (!support) continue;
    out = out.replace(check.claim, `${bare} [${support}]`);
  }
  return out;
}

/** The offline research planner's next move, read from the prompt. */
export function researchTurn(options: LanguageModelV3CallOptions, question: string, lastUserText: string): LanguageModelV3Content[] {
  const calls = readCalls(options.prompt);
  const offered = new Set((options.tools ?? []).map((tool) => tool.name));
  const mayCall = options.toolChoice?.type !== 'none' && lastUserText === question;
  const call = (name: string, input: unknown, i = 0): LanguageModelV3Content => ({
    type: 'tool-call',
    toolCallId: `offline-research-${calls.length + i}`,
    toolName: name,
    input: JSON.stringify(input),
  });

  const plan = calls.find((c) => c.name === 'plan' && c.result);
  if (mayCall && !plan && offered.has('plan')) {
    const subQuestions = decomposeQuestion(question);
    const brief =
      subQuestions.length > 1
        ? `The question has ${subQuestions.length} parts; each is answered from the documents on its own, then brought together.`
        : 'One question: answered from the documents by a nested agent that follows the entities it finds.';
    return [call('plan', { brief, subQuestions })];
  }
  const planned = plan
    ? [...(plan.result ?? '').matchAll(/^(S\d+) \[[^\]]*\]: (.*)$/gm)].map((m) => ({ id: m[1], question: m[2] }))
    : [{ id: 'S1', question }];
  const asked = new Set(calls.filter((c) => c.name === 'rag').map((c) => String(c.input.subQuestion ?? '')));
  const pending = planned.filter((item) => !asked.has(item.id));
  if (mayCall && pending.length && offered.has('rag'))
    return pending.map((item, i) => call('rag', { question: item.question, subQuestion: item.id }, i));

  const answers = subAnswers(calls);
  const python = calls.find((c) => c.name === 'python');
  const code =
    answers[0]?.status === 'answered' && analyseQuestion(question).type === 'calculation'
      ? pythonFor(firstLine(answers[0].answer))
      : undefined;
  if (mayCall && code && !python && offered.has('python')) return [call('python', { code })];
  const computed = python?.result ? /RESULT=(-?[\d.]+)/.exec(python.result)?.[1] : undefined;

  const report = composeReport(question, answers.length ? answers : [], computed);
  const evidence = new Map<string, string>();
  for (const c of calls) for (const block of parseEvidence(c.result ?? '')) if (!block.reference) evidence.set(block.id, block.text);
  const critique = critiqueDraft(
    report,
    (id) => evidence.get(id),
    planned.map((p) => ({ ...p, status: answers.find((a) => a.id === p.id)?.status === 'answered' ? 'answered' : 'open' })),
  );
  if (mayCall && !calls.some((c) => c.name === 'critique') && offered.has('critique')) return [call('critique', { draft: report })];
  // The critique's findings are addressed before the answer is final: a claim another passage
  // supports is cited to that passage instead; what none supports is marked uncertain.
  const items = planned.map((p) => ({
    ...p,
    status: answers.find((a) => a.id === p.id)?.status === 'answered' ? ('answered' as const) : ('open' as const),
  }));
  const fixed = hasFindings(critique) ? reciteFromEvidence(report, critique, evidence) : report;
  const left = critiqueDraft(fixed, (id) => evidence.get(id), items);
  return [{ type: 'text', text: hasFindings(left) ? markFindings(fixed, left) : fixed }];
}
