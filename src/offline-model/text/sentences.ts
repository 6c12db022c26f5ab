import { MIN_SENTENCE_CHARS } from '../tuning.ts';

/**
 * The reading units of a passage: prose sentences, list items, code blocks (kept whole, with their
 * line breaks) and key–value rows (a CSV or table row: "product: Tern-4; built by: Coastal Team").
 * Parsers hand code over as plain lines, so code is recognised by its shape (a fence, a shell or
 * REPL prompt, an assignment, a call, a keyword line, a template tag) as well as by ``` fences.
 */
export type SegmentKind = 'sentence' | 'item' | 'code' | 'row';

export interface Segment {
  text: string;
  kind: SegmentKind;
  /** Index of the paragraph (blank-line-separated block) the segment belongs to. */
  block: number;
  /** Position among the passage's segments. */
  index: number;
}

/** Words whose trailing dot does not end a sentence (lower-cased, without the dot). */
const ABBREVIATIONS = new Set(
  (
    'e.g i.e al cf vs v mr mrs ms dr prof st sr jr mt ft no nos fig figs eq eqs vol vols ch sec p pp ' +
    'inc ltd co corp bros gen col lt sgt capt cmdr adm rev hon gov sen rep pres approx ca est dept univ assn ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec'
  ).split(' '),
);

const LIST_ITEM = /^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+\S/;
const FENCE = /^\s*(?:```|~~~)/;
/** "product: Tern-4; category: salinity sensor; …" — a record with two or more labelled fields. */
const ROW = /^[^:;\n]{1,60}: [^;\n]*(?:; [^:;\n]{1,60}: [^;\n]*)+$/;
/** RST/Setext underlines and horizontal rules. */
const RULE = /^\s*([=\-~^"'`#*+_.:])\1{2,}\s*$/;

/** Shell and REPL prompts (">>>" reaches the model defused as "›››"). */
const PROMPT = /^(?:\$|>>>|›››|\.\.\.|%|#!|PS>|C:\\>)(?:\s|$)/;
const CODE_KEYWORD =
  /^(?:import\s+[\w.{*]|from\s+[\w.]+\s+import\b|def\s+\w+\s*\(|class\s+\w+[:(\s]|async\s+(?:def|with|for)\b|await\s+\w|with\s+\S.*:$|for\s+\w+(?:,\s*\w+)*\s+in\s+.+:$|while\s+.+:$|if\s+.+:$|elif\s+.+:$|else\s*:$|try\s*:$|except\b.*:$|finally\s*:$|return\b|raise\s+\w|yield\b|print\s*\(|(?:let|const|var)\s+\w+\s*[=:]|fn\s+\w+|pub\s+(?:fn|struct|enum|mod|use)\b|use\s+[\w:]+;|impl\b|struct\s+\w+|enum\s+\w+|#include\b|@\w+|(?:pip|pip3|npm|npx|yarn|pnpm|cargo|rustc|python|python3|node|git|curl|wget|docker|brew|apt|apt-get|uv|poetry|make|go|dotnet|java|javac|gcc|sudo|export|cd|ls|mkdir)\s+\S)/;
const TEMPLATE = /\{\{.*\}\}|\{%.*%\}|\{#.*#\}/;

/** Looks like a line of code or a shell command (not a sentence of prose). */
/** Reads as a sentence of prose: a capitalised start, mostly plain words, a sentence end. */
function looksLikeProse(t: string): boolean {
  if (!/^["“'(]?\p{Lu}\p{Ll}*\b/u.test(t) || !/[.!?:]["”')]?$/.test(t)) return false;
  const words = t.split(/\s+/);
  if (words.length < 5) return false;
  return words.filter((w) => /^["“'(]?[\p{L}][\p{Ll}'’-]*[,;:.!?"”')]*$/u.test(w)).length / words.length >= 0.7;
}

export function isCodeLine(line: string): boolean {
  const t = line.trim();
  if (!t) return false;
  if (PROMPT.test(t)) return true;
  if (looksLikeProse(t)) return false;
  if (TEMPLATE.test(t)) return true;
  if (CODE_KEYWORD.test(t)) return !/^[A-Z]/.test(t) || /^(?:PS>|C:\\)/.test(t);
  // assignment (a = b, a.b = c, x: int = 1) or a bare call (foo.bar(...)), optionally with a trailing comment
  if (/^[\w.[\]'"]+(?:\s*:\s*[\w.[\]]+)?\s*(?:[-+*/|&]?=)\s*\S/.test(t) && !/^\w+\s*=\s*\w+\s+\w+\s+\w+/.test(t)) return true;
  if (/^[\w.]+(?:\[[^\]]*\])?\([^]*\)\s*(?:[;,]|\s+#.*|\s+\/\/.*)?$/.test(t)) return true;
  if (/^[)\]}][\s,;)\]}]*$|^[{[(]$/.test(t)) return true; // closing brackets on their own
  if (/^<\/?[a-zA-Z][\w-]*(?:\s[^>]*)?>/.test(t) && />$/.test(t)) return true; // markup
  if (/^(?:[\w-]+\s*:\s*\S.*|-\s+\w[\w-]*:.*)$/.test(t) && /^\s{2,}/.test(line) && !/\s\w+\s\w+\s\w+\s\w+/.test(t)) return true; // indented YAML
  if (/^\s{4,}\S/.test(line) && /[(){}[\]=;<>]|^\w+[.:]\w/.test(t) && !/[.!?]["')]?$/.test(t)) return true; // indented code
  return false;
}

/** A comment line inside code: "# Using a client instance:", "// note". */
function isCommentLine(line: string): boolean {
  return /^\s*(?:#|\/\/|--)\s?\S/.test(line) && !/^\s*#{1,6}\s+[A-Z][^:]*$/.test(line);
}

/** Where a sentence may end inside a paragraph of prose (indices just after the end mark). */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  // Inline code spans and parentheses with no space inside are never broken.
  const protectedRanges: Array<[number, number]> = [];
  for (const match of text.matchAll(/`[^`\n]+`/g)) protectedRanges.push([match.index!, match.index! + match[0].length]);
  const inProtected = (i: number) => protectedRanges.some(([a, b]) => i > a && i < b);
  const boundary = /([.!?]+|[.!?]*…)(["'”’)\]]*)(\s+)(?=(["'“‘([]*)(\S))/g;
  for (const match of text.matchAll(boundary)) {
    const at = match.index!;
    if (inProtected(at)) continue;
    const end = at + match[1].length + match[2].length;
    const next = match[5];
    const mark = match[1];
    // The next sentence starts with a capital, a digit, a quote or bracket, or a list marker.
    if (!/[\p{Lu}\p{N}"'“‘([*•-]/u.test(next) && !/["'“‘([]/.test(match[4] ?? '')) continue;
    const before = text.slice(0, at);
    const word = /(\S+)$/.exec(before)?.[1] ?? '';
    if (mark === '.' && match[2] === '') {
      const bare = word.replace(/^[("'“‘[]+/, '');
      if (ABBREVIATIONS.has(bare.toLowerCase())) continue; // "Dr. Smith", "e.g. Python", "No. 5"
      if (/^\p{Lu}$/u.test(bare)) continue; // an initial: "Henry J. Kaiser"
      if (/^(?:\p{L}\.)+\p{L}$/u.test(bare)) continue; // "U.S. Army", "e.g. Foo", "a.m. Monday"
      if (
        /^\d+$/.test(bare) &&
        /^\d/.test(next) === false &&
        /\b(?:no|version|v|step|chapter|section|page|figure|fig)\s*$/i.test(before.slice(0, -bare.length))
      )
        continue;
    }
    if (mark === '!' && /[\w)]$/.test(before) && /^[a-z_]/.test(next)) continue; // "format! macro"
    // A closing quote set off by a space, then lower case: the title ends, not the sentence ('"Teen Titans Go! " is …')
    if (/^["'”’]\s+\p{Ll}/u.test(text.slice(at + match[0].length))) continue;
    ends.push(end);
  }
  return ends;
}

/** Splits one paragraph of prose into sentences (hard-wrapped lines are joined first). */
export function splitSentences(paragraph: string): string[] {
  const text = paragraph.replace(/\s*\n\s*/g, ' ').trim();
  if (!text) return [];
  const out: string[] = [];
  let start = 0;
  for (const end of sentenceEnds(text)) {
    out.push(text.slice(start, end).trim());
    start = end;
  }
  out.push(text.slice(start).trim());
  return out.filter(Boolean);
}

type Line = { text: string; kind: 'blank' | 'fence' | 'code' | 'comment' | 'item' | 'row' | 'rule' | 'prose' };

function classify(line: string): Line['kind'] {
  if (!line.trim()) return 'blank';
  if (FENCE.test(line)) return 'fence';
  if (RULE.test(line)) return 'rule';
  if (ROW.test(line.trim())) return 'row';
  if (LIST_ITEM.test(line) && !isCodeLine(line.replace(/^\s*[-*•+]\s+/, ''))) return 'item';
  if (isCodeLine(line)) return 'code';
  if (isCommentLine(line)) return 'comment';
  return 'prose';
}

/** The passage's segments in reading order. */
export function segmentsOf(text: string): Segment[] {
  const lines: Line[] = text.split('\n').map((line) => ({ text: line.replace(/\s+$/, ''), kind: classify(line) }));
  // A comment line is code when code is next to it (through blank lines); prose otherwise.
  const nearestCode = (from: number, step: number) => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      if (lines[i].kind === 'blank' || lines[i].kind === 'comment') continue;
      return lines[i].kind === 'code';
    }
    return false;
  };
  lines.forEach((line, i) => {
    // A hard-wrapped line of prose that happens to open with a command word ("make eventually, …") goes on the sentence.
    if (
      line.kind === 'code' &&
      lines[i - 1]?.kind === 'prose' &&
      !/[:.!?]$/.test(lines[i - 1].text.trim()) &&
      /^\p{Ll}[\p{L}'’-]*(?:\s+[\p{L}'’,.;-]+){2,}$/u.test(line.text.trim())
    )
      line.kind = 'prose';
    if (line.kind === 'comment') line.kind = nearestCode(i + 1, 1) || nearestCode(i - 1, -1) ? 'code' : 'prose';
  });
  const segments: Segment[] = [];
  let block = 0;
  const push = (kind: SegmentKind, value: string) => segments.push({ text: value, kind, block, index: segments.length });
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.kind === 'blank' || line.kind === 'rule') {
      if (line.kind === 'blank') block++;
      i++;
      continue;
    }
    if (line.kind === 'fence') {
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i].kind !== 'fence') body.push(lines[i++].text);
      i++;
      if (body.some((l) => l.trim())) push('code', dedent(body));
      continue;
    }
    if (line.kind === 'code') {
      const body: string[] = [];
      // Code runs on through blank lines when more code follows them, and through any line while a bracket is open.
      let depth = 0;
      while (i < lines.length) {
        const current = lines[i];
        if (current.kind === 'code' || (depth > 0 && current.kind !== 'fence')) body.push(lines[i++].text);
        else if (current.kind === 'blank' && nextNonBlank(lines, i)?.kind === 'code') body.push(lines[i++].text);
        else break;
        depth = Math.max(0, depth + bracketBalance(current.text));
      }
      push('code', dedent(body));
      continue;
    }
    if (line.kind === 'row') {
      push('row', line.text.trim());
      i++;
      continue;
    }
    if (line.kind === 'item') {
      const item = [line.text.trim()];
      const indent = /^\s*/.exec(line.text)![0].length;
      i++;
      // Continuation lines of the item: prose right below it, before a blank line (Markdown's lazy continuation)
      void indent;
      while (i < lines.length && (lines[i].kind === 'prose' || lines[i].kind === 'comment')) item.push(lines[i++].text.trim());
      push('item', item.join(' '));
      continue;
    }
    const prose: string[] = [];
    while (i < lines.length && lines[i].kind === 'prose') prose.push(lines[i++].text);
    for (const sentence of splitSentences(prose.join('\n'))) push('sentence', sentence);
  }
  return segments;
}

/** Opening minus closing brackets on a line, outside string literals. */
function bracketBalance(line: string): number {
  const bare = line.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '');
  return (bare.match(/[([{]/g)?.length ?? 0) - (bare.match(/[)\]}]/g)?.length ?? 0);
}

function nextNonBlank(lines: Line[], from: number): Line | undefined {
  for (let i = from; i < lines.length; i++) if (lines[i].kind !== 'blank') return lines[i];
  return undefined;
}

function dedent(lines: string[]): string {
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  const indents = lines.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(Math.min(cut, /^\s*/.exec(l)![0].length))).join('\n');
}

/** The sentences (and items, rows and code blocks) of a passage worth quoting. */
export function sentencesOf(text: string): string[] {
  return segmentsOf(text)
    .filter((s) => s.text.length > MIN_SENTENCE_CHARS)
    .map((s) => s.text);
}

/**
 * A lead-in: a sentence whose content is what follows it ("First, let's take a look at the
 * ownership rules.", "You can set a timeout like this:", "The following options exist:").
 */
export function isLeadIn(sentence: string): boolean {
  const t = sentence.trim();
  if (/(?::|\.\.\.|…)$/.test(t)) return true;
  return /\b(?:let['’]?s (?:take a look|look|see|start|begin|get started|walk through|review|explore)|take a look at|(?:is|are) as follows|the following\b(?! (?:day|week|month|year|season))|(?:shown|listed|described|given) below|here(?:['’]s| is| are) (?:how|what|an? example|the)|for example[,.]?$|for instance[,.]?$|like this[.:]?$|as shown (?:here|below))/i.test(
    t,
  );
}
