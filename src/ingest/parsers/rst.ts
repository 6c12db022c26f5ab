/**
 * reStructuredText (docutils, Sphinx) → blocks. Not a docutils port: it reads the structure that
 * carries meaning for search and reading — section titles (levels in the order adornment styles
 * first appear, as docutils decides them), paragraphs, lists, literal and code blocks, tables — and
 * reduces directives, roles and inline markup to the text a reader of the rendered page sees.
 * Markup a reader never sees (toctrees, includes, targets, substitution definitions, comments,
 * directive options) is dropped.
 */
import Papa from 'papaparse';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { asParseError, titleFromFileName, titleFromHeadings } from './util.ts';

type Item =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string; language?: string };

interface State {
  /** Adornment styles in the order they first appear: index + 1 is the section level. */
  styles: string[];
  substitutions: Map<string, string>;
  /** `.. _label:` targets placed before a section title → that title, for `:ref:` without a text. */
  labels: Map<string, string>;
  metadata: Record<string, unknown>;
  root: Item[];
  /** Directives whose content lives elsewhere (include, literalinclude): named when a file has no text of its own. */
  unfollowed: Set<string>;
  /** Targets of those directives, as written (relative to this file), for the pipeline to follow. */
  includes: string[];
  /** Nesting of blocks being parsed (block quotes, list items, directive content). */
  depth: number;
  /** The language `.. highlight::` set for literal blocks (`::`) and code blocks that name none. */
  highlight?: string;
}

/** Deeper nesting than real documents have is read as plain paragraphs: indentation staircases stay linear. */
const MAX_DEPTH = 32;

// ASCII punctuation, any of which may adorn a section title.
const ADORNMENT = /^([!-/:-@[-`{-~])\1*\s*$/;
const BULLET = /^([-*+•‣⁃])( +|$)/;
const ENUMERATOR =
  /^(?:(\d{1,3}|#|[a-zA-Z]|[ivxlcdm]{2,5}|[IVXLCDM]{2,5})[.)]|\((\d{1,3}|#|[a-zA-Z]|[ivxlcdm]{2,5}|[IVXLCDM]{2,5})\))( +|$)/;
const FIELD = /^:((?:\\.|[^:\\`])+):( +|$)/;
const OPTION = /^:([\w-][\w .-]*?):(?:\s+(.*))?$/;
const GRID_TOP = /^\+(?:[-=]+\+)+\s*$/;
const SIMPLE_BORDER = /^=+(?: +=+)+\s*$/;
const DIRECTIVE = /^([A-Za-z][\w+.-]*(?::[A-Za-z][\w+.-]*)*)::(?:\s+(.*))?$/;

const isBlank = (line: string | undefined): boolean => line === undefined || line.trim() === '';
const indentOf = (line: string): number => line.length - line.trimStart().length;

function adornmentOf(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  const match = ADORNMENT.exec(line);
  return match ? match[1] : undefined;
}

/** Display width of a title, for the "underline at least as long as the title" rule. */
const widthOf = (text: string): number => [...text.trim()].length;

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const char of line) out += char === '\t' ? ' '.repeat(8 - (out.length % 8)) : char;
  return out;
}

/** End (exclusive) of the block starting at `from` whose lines are blank or indented by `minIndent`+; trailing blanks excluded. */
function indentedEnd(lines: string[], from: number, minIndent = 1): number {
  let end = from;
  let last = from;
  while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]) >= minIndent)) {
    if (!isBlank(lines[end])) last = end + 1;
    end++;
  }
  return last;
}

function dedent(lines: string[]): string[] {
  let min = Infinity;
  for (const line of lines) if (!isBlank(line)) min = Math.min(min, indentOf(line));
  if (!Number.isFinite(min) || min === 0) return lines;
  return lines.map((line) => (isBlank(line) ? '' : line.slice(min)));
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start])) start++;
  while (end > start && isBlank(lines[end - 1])) end--;
  return lines.slice(start, end);
}

const normalizeLabel = (label: string): string => label.replace(/\s+/g, ' ').trim().toLowerCase();

// ---------------------------------------------------------------------------------------------
// Inline markup

// Inline markup starts after whitespace or opening punctuation and ends before whitespace or
// closing punctuation (the docutils recognition rules), so `a*b*c` or `x|y|z` stay as they are.
const START = String.raw`(?<=^|[\s\-:/'"<(\[{])`;
const END = String.raw`(?=$|[\s\-.,:;!?\\/'")\]}>])`;
// Spans are bounded so a long paragraph full of stray "*" or "``" stays linear, not quadratic.
const INLINE = new RegExp(
  [
    String.raw`${START}\`\`(?!\s)([\s\S]{1,4000}?)(?<!\s)\`\`${END}`, // 1 ``literal``
    String.raw`${START}(?::([\w.+:-]+):)?\`(?!\s)((?:\\[\s\S]|[^\\\`])+?)(?<!\s)\`(?::([\w.+:-]+):|(__?))?${END}`, // 2 role, 3 text, 4 suffix role, 5 link
    String.raw`${START}\|(?!\s)([^|\n]+?)(?<!\s)\|(?:__?)?${END}`, // 6 |substitution|
    String.raw`${START}\*\*(?!\s)([\s\S]{1,1000}?)(?<!\s)\*\*${END}`, // 7 **strong**
    String.raw`${START}\*(?!\s)([\s\S]{1,1000}?)(?<![\s*])\*${END}`, // 8 *emphasis*
    String.raw` ?\[(#[\w-]*|\*|\d+)\]_${END}`, // 9 footnote reference: the number means nothing in text
    String.raw`${START}\[([A-Za-z][\w.-]*)\]_${END}`, // 10 [citation]_
    String.raw`(?<![\w\\])([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)__?(?![\w])`, // 11 reference_
    String.raw`\\([\s\S])`, // 12 escape
  ].join('|'),
  'g',
);

function unescape(text: string): string {
  return text.replace(/\\([\s\S])/g, (_, char: string) => (/\s/.test(char) ? '' : char));
}

/** The text a role renders: `title <target>` → title, `~a.b.C` → C, `!x` → x, `:ref:` → the section title. */
function roleText(role: string | undefined, raw: string, state: State): string {
  const text = unescape(raw).replace(/\s+/g, ' ');
  const explicit = /^([\s\S]*?)\s*<([^<>]+)>$/.exec(text);
  if (explicit?.[1].trim()) return explicit[1].trim();
  let target = (explicit ? explicit[2] : text).trim();
  const name = (role ?? '').split(':').pop() ?? '';
  switch (name) {
    case 'ref':
      return state.labels.get(normalizeLabel(target)) ?? target.replace(/[-_]+/g, ' ');
    case 'doc':
      return target.split('/').pop() ?? target;
    case 'pep':
      return `PEP ${target}`;
    case 'rfc':
      return `RFC ${target}`;
    case 'guilabel':
      return target.replace(/&(.)/g, '$1');
    case 'menuselection':
      return target.replace(/\s*-->\s*/g, ' → ');
    default:
      break;
  }
  if (target.startsWith('!')) target = target.slice(1);
  if (target.startsWith('~')) {
    const call = target.endsWith('()') ? '()' : '';
    target =
      (target
        .slice(1, target.length - call.length)
        .split('.')
        .pop() ?? '') + call;
  }
  return target.replace(/^\.(?=\w)/, ''); // `.Name`: "look it up in this module", not part of the name
}

function emptyState(): State {
  return { styles: [], substitutions: new Map(), labels: new Map(), metadata: {}, root: [], unfollowed: new Set(), includes: [], depth: 0 };
}

/** A role's rendered text outside an RST document (MyST's {role}`text`). */
export function reduceRole(role: string, text: string): string {
  return roleText(role, text, emptyState());
}

function inline(text: string, state: State): string {
  return text
    .replace(
      INLINE,
      (match, literal, role, interpreted, suffixRole, link, substitution, strong, emphasis, footnote, citation, reference, escaped) => {
        if (literal !== undefined) return literal;
        if (interpreted !== undefined) {
          if (link) return roleText(undefined, interpreted, state);
          return roleText(role ?? suffixRole, interpreted, state);
        }
        if (substitution !== undefined) return state.substitutions.get(substitution) ?? substitution;
        if (strong !== undefined) return unescape(strong);
        if (emphasis !== undefined) return unescape(emphasis);
        if (footnote !== undefined) return '';
        if (citation !== undefined) return `[${citation}]`;
        if (reference !== undefined) return reference;
        if (escaped !== undefined) return /\s/.test(escaped) ? '' : escaped;
        return match;
      },
    )
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Tables

/** "Header: value; Header: value" per row (as the Markdown and CSV parsers do), plain cells without a header. */
function tableText(rows: string[][], headerRows: number): string {
  const header = headerRows > 0 ? rows[headerRows - 1] : [];
  return rows
    .slice(headerRows)
    .map((row) =>
      row
        .map((cell, i) => (cell && header[i] ? `${header[i]}: ${cell}` : cell))
        .filter(Boolean)
        .join('; '),
    )
    .filter(Boolean)
    .join('\n');
}

function gridTable(lines: string[], state: State): string {
  const border = lines[0];
  const columns: number[] = [];
  for (let i = 0; i < border.length; i++) if (border[i] === '+') columns.push(i);
  const rows: string[][] = [];
  let headerRows = 0;
  let current: string[][] = [];
  const flush = () => {
    if (current.length) rows.push(current.map((cell) => inline(cell.join(' '), state)));
    current = [];
  };
  for (const line of lines.slice(1)) {
    if (/^\+[-=+]+\+?\s*$/.test(line.trim())) {
      flush();
      if (line.includes('=')) headerRows = rows.length;
      continue;
    }
    if (current.length === 0) current = columns.slice(1).map(() => []);
    for (let c = 0; c + 1 < columns.length; c++) {
      const cell = line
        .slice(columns[c] + 1, columns[c + 1])
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .trim();
      if (cell) current[c].push(cell);
    }
  }
  flush();
  return tableText(rows, headerRows);
}

function simpleTable(lines: string[], state: State): string {
  const spans: [number, number][] = [];
  for (const match of lines[0].matchAll(/=+/g)) spans.push([match.index, match.index + match[0].length]);
  const rows: string[][] = [];
  let headerRows = 0;
  let borders = 0;
  for (const line of lines.slice(1)) {
    if (SIMPLE_BORDER.test(line) || /^-+(?: +-+)+\s*$/.test(line)) {
      borders++;
      if (borders === 1 && line.trim().startsWith('=')) headerRows = rows.length;
      continue;
    }
    if (isBlank(line)) continue;
    // The last column runs to the end of the line; a row whose first cell is blank continues the previous one.
    const cells = spans.map(([from], c) => line.slice(from, c + 1 < spans.length ? spans[c + 1][0] : undefined).trim());
    if (!cells[0] && rows.length)
      rows[rows.length - 1] = rows[rows.length - 1].map((cell, c) => [cell, cells[c]].filter(Boolean).join(' '));
    else rows.push(cells);
  }
  if (borders < 2) headerRows = 0; // a table with one closing border has no header
  return tableText(
    rows.map((row) => row.map((cell) => inline(cell, state))),
    headerRows,
  );
}

// ---------------------------------------------------------------------------------------------
// Blocks

function textOf(items: Item[]): string {
  return items.map((item) => item.text).join('\n');
}

/** A marker's style: a list goes on only while it stays the same ("-" vs "*", "1." vs "(a)"), as in docutils. */
const markerStyle = (marker: string): string =>
  marker.trim().replace(/^\(?(\d+|#|[A-Za-z]+)/, (_, label: string) => (/^\d+$|^#$/.test(label) ? '1' : 'a'));

/** Splits a list at its markers into each item's lines (first line's text after the marker, the rest dedented). */
function listItems(lines: string[], from: number, marker: RegExp): { items: string[][]; markers: string[]; end: number } {
  const items: string[][] = [];
  const markers: string[] = [];
  let i = from;
  while (i < lines.length) {
    const match = marker.exec(lines[i]);
    if (!match || (markers.length && markerStyle(match[0]) !== markerStyle(markers[0]))) break;
    const end = indentedEnd(lines, i + 1);
    items.push([lines[i].slice(match[0].length), ...dedent(lines.slice(i + 1, end))]);
    markers.push(match[0].trim());
    i = end;
    let next = i;
    while (next < lines.length && isBlank(lines[next])) next++;
    const following = next < lines.length ? marker.exec(lines[next]) : null;
    if (!following || markerStyle(following[0]) !== markerStyle(markers[0])) break;
    i = next;
  }
  return { items, markers, end: i };
}

function isEnumerated(lines: string[], i: number): boolean {
  if (!ENUMERATOR.test(lines[i])) return false;
  const next = lines[i + 1];
  return isBlank(next) || indentOf(next) > 0 || ENUMERATOR.test(next);
}

function enumLabel(marker: string, index: number, first: string): string {
  const label = marker.replace(/[().]/g, '');
  if (label === '#') return `${index + 1}.`;
  if (/^\d+$/.test(first.replace(/[().]/g, ''))) return `${Number(first.replace(/[().]/g, '')) + index}.`;
  return `${label}.`;
}

function listText(items: string[][], labels: string[], state: State): string {
  return items
    .map((lines, n) => {
      const out: Item[] = [];
      parseLines(lines, state, out, true);
      const label = labels[n];
      return `${label} ${textOf(out).replace(/\n/g, `\n${' '.repeat(label.length + 1)}`)}`.trimEnd();
    })
    .join('\n');
}

function parseValue(value: string): unknown {
  if (value === '') return true;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

function fieldList(lines: string[], from: number, state: State, out: Item[], nested: boolean): number {
  // A field list before any body text (at most after the document title) is docinfo: metadata, not text.
  const docinfo = !nested && out === state.root && out.every((item) => item.kind === 'heading') && out.length <= 1;
  const rendered: string[] = [];
  let i = from;
  while (i < lines.length) {
    const match = FIELD.exec(lines[i]);
    if (!match) break;
    const end = indentedEnd(lines, i + 1);
    const body: Item[] = [];
    parseLines([lines[i].slice(match[0].length), ...dedent(lines.slice(i + 1, end))], state, body, true);
    const name = inline(match[1], state);
    const value = textOf(body);
    if (docinfo) state.metadata[name.toLowerCase()] = parseValue(value.replace(/\s+/g, ' ').trim());
    else rendered.push(value ? `${name}: ${value}` : name);
    i = end;
    while (isBlank(lines[i]) && i < lines.length && FIELD.test(lines[i + 1] ?? '')) i++;
  }
  if (rendered.length) out.push({ kind: 'text', text: rendered.join('\n') });
  return i;
}

function heading(text: string, style: string, state: State, out: Item[], nested: boolean): void {
  const title = inline(text.trim(), state);
  if (!title) return;
  if (nested) {
    out.push({ kind: 'text', text: title }); // docutils allows no sections inside blocks; keep the words
    return;
  }
  let level = state.styles.indexOf(style) + 1;
  if (level === 0) level = state.styles.push(style);
  out.push({ kind: 'heading', level: Math.min(level, 6), text: title });
}

/** A code item, with its language when one is known. */
function codeItem(text: string, language: string | undefined): Item {
  return language ? { kind: 'code', text, language } : { kind: 'code', text };
}

/** A directive argument or option as a language name ("python", "pycon"), or none. */
function languageOf(argument: string | undefined): string | undefined {
  const word = /^[\w+#.-]+/.exec((argument ?? '').trim())?.[0];
  return word ? word.toLowerCase() : undefined;
}

function literalBlock(lines: string[], from: number, state: State, out: Item[]): number {
  let i = from;
  while (i < lines.length && isBlank(lines[i])) i++;
  if (i >= lines.length || indentOf(lines[i]) === 0) return from;
  const end = indentedEnd(lines, i);
  const code = trimBlankEdges(dedent(lines.slice(i, end))).join('\n');
  if (code.trim()) out.push(codeItem(code, state.highlight));
  return end;
}

function parseLines(lines: string[], state: State, out: Item[], nested: boolean): void {
  if (state.depth >= MAX_DEPTH) {
    for (const paragraph of lines.join('\n').split(/\n\s*\n/)) {
      const text = paragraph
        .split('\n')
        .map((line) => line.trim())
        .join(' ')
        .trim();
      if (text) out.push({ kind: 'text', text });
    }
    return;
  }
  state.depth++;
  try {
    parseBlocks(lines, state, out, nested);
  } finally {
    state.depth--;
  }
}

function parseBlocks(lines: string[], state: State, out: Item[], nested: boolean): void {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    if (indentOf(line) > 0) {
      // Block quote: indented text with no literal-block marker before it.
      const end = indentedEnd(lines, i);
      parseLines(dedent(lines.slice(i, end)), state, out, true);
      i = Math.max(end, i + 1);
      continue;
    }
    if (/^\.\.(\s|$)/.test(line)) {
      i = explicitMarkup(lines, i, state, out);
      continue;
    }
    if (GRID_TOP.test(line)) {
      let end = i;
      while (end < lines.length && !isBlank(lines[end])) end++;
      const text = gridTable(lines.slice(i, end), state);
      if (text) out.push({ kind: 'text', text });
      i = end;
      continue;
    }
    if (SIMPLE_BORDER.test(line)) {
      let end = i + 1;
      let borders = 0;
      while (end < lines.length) {
        if (SIMPLE_BORDER.test(lines[end])) borders++;
        end++;
        if (borders >= 1 && SIMPLE_BORDER.test(lines[end - 1]) && isBlank(lines[end])) break;
      }
      const text = simpleTable(lines.slice(i, end), state);
      if (text) out.push({ kind: 'text', text });
      i = end;
      continue;
    }
    const over = adornmentOf(line);
    if (over) {
      const title = lines[i + 1];
      if (!isBlank(title) && adornmentOf(lines[i + 2]) === over && !adornmentOf(title)) {
        heading(title, `${over}${over}`, state, out, nested);
        i += 3;
        continue;
      }
      if (line.trim().length >= 4 && isBlank(lines[i + 1])) {
        i++; // transition
        continue;
      }
    }
    if (BULLET.test(line)) {
      const { items, markers, end } = listItems(lines, i, BULLET);
      out.push({
        kind: 'text',
        text: listText(
          items,
          markers.map(() => '-'),
          state,
        ),
      });
      i = end;
      continue;
    }
    if (isEnumerated(lines, i)) {
      const { items, markers, end } = listItems(lines, i, ENUMERATOR);
      out.push({
        kind: 'text',
        text: listText(
          items,
          markers.map((marker, n) => enumLabel(marker, n, markers[0])),
          state,
        ),
      });
      i = end;
      continue;
    }
    if (FIELD.test(line)) {
      i = fieldList(lines, i, state, out, nested);
      continue;
    }
    if (/^\|( +|$)/.test(line)) {
      // Line block: line breaks are meaning (addresses, verse); continuation lines join their line.
      const kept: string[] = [];
      while (i < lines.length && !isBlank(lines[i])) {
        if (/^\|( +|$)/.test(lines[i])) kept.push(lines[i].replace(/^\|\s?/, ''));
        else kept[kept.length - 1] += ` ${lines[i].trim()}`;
        i++;
      }
      const text = kept
        .map((part) => inline(part, state))
        .join('\n')
        .trim();
      if (text) out.push({ kind: 'text', text });
      continue;
    }
    if (/^>>>( |$)/.test(line)) {
      const start = i;
      while (i < lines.length && !isBlank(lines[i])) i++;
      out.push(codeItem(lines.slice(start, i).join('\n'), 'pycon')); // a doctest block: an interactive Python session
      continue;
    }
    const under = adornmentOf(lines[i + 1]);
    if (under && (lines[i + 1].trim().length >= widthOf(line) || lines[i + 1].trim().length >= 4)) {
      heading(line, under, state, out, nested);
      i += 2;
      continue;
    }
    if (!isBlank(lines[i + 1]) && indentOf(lines[i + 1]) > 0 && !/::\s*$/.test(line)) {
      // Definition list item: a term line and its indented definition.
      const end = indentedEnd(lines, i + 1);
      const definition: Item[] = [];
      parseLines(dedent(lines.slice(i + 1, end)), state, definition, true);
      const term = inline(line.split(/ +: +/)[0], state);
      const body = textOf(definition);
      const label = term.endsWith(':') ? term : `${term}:`;
      const text = !body
        ? term
        : definition[0].kind === 'text' && !/^[-\d]/.test(definition[0].text)
          ? `${label} ${body}`
          : `${label}\n${body}`;
      if (text) out.push({ kind: 'text', text });
      i = end;
      continue;
    }
    // Paragraph: lines up to a blank line, an indented line, or a line that is a title's text.
    const start = i;
    i++;
    while (i < lines.length && !isBlank(lines[i]) && indentOf(lines[i]) === 0 && !adornmentOf(lines[i + 1])) i++;
    let text = lines
      .slice(start, i)
      .map((part) => part.trim())
      .join(' ');
    const literal = /::$/.test(text);
    if (literal) text = text === '::' ? '' : /\s::$/.test(text) ? text.slice(0, -3) : text.slice(0, -1);
    const rendered = inline(text, state);
    if (rendered) out.push({ kind: 'text', text: rendered });
    if (literal) i = literalBlock(lines, i, state, out);
  }
}

// ---------------------------------------------------------------------------------------------
// Explicit markup: directives, targets, substitution definitions, footnotes, comments

export const CODE_DIRECTIVES = new Set([
  'code-block',
  'sourcecode',
  'code',
  'doctest',
  'testcode',
  'testoutput',
  'parsed-literal',
  'ipython',
  'prompt',
]);
/** Languages of the code directives that imply one (the rest name theirs in the argument). */
export const DIRECTIVE_LANGUAGE: Record<string, string> = { doctest: 'pycon', testcode: 'python', ipython: 'ipython' };
export const DROPPED_DIRECTIVES = new Set([
  'toctree',
  'include',
  'literalinclude',
  'raw',
  'highlight',
  'highlightlang',
  'module',
  'currentmodule',
  'rst-class',
  'role',
  'default-role',
  'meta',
  'contents',
  'sectnum',
  'section-numbering',
  'index',
  'tabularcolumns',
  'autosummary',
  'todolist',
  'todo',
  'target-notes',
  'header',
  'footer',
  'title',
  'graphviz',
  'digraph',
  'graph',
  'inheritance-diagram',
  'testsetup',
  'testcleanup',
  'codeauthor',
  'sectionauthor',
  'moduleauthor',
  'program',
  'automodule',
  'autoclasstree',
]);
export const ADMONITIONS: Record<string, string> = {
  note: 'Note',
  warning: 'Warning',
  tip: 'Tip',
  hint: 'Hint',
  important: 'Important',
  caution: 'Caution',
  danger: 'Danger',
  attention: 'Attention',
  error: 'Error',
  seealso: 'See also',
};
export const VERSIONS: Record<string, string> = {
  versionadded: 'Added in version',
  versionchanged: 'Changed in version',
  deprecated: 'Deprecated since version',
  versionremoved: 'Removed in version',
};
const TITLED = new Set(['topic', 'sidebar', 'rubric', 'table', 'list-table', 'csv-table', 'glossary', 'centered']);
// Sphinx object descriptions (and autodoc's auto* forms): the signature is what the content describes.
const OBJECTS = new Set([
  'class',
  'function',
  'method',
  'attribute',
  'data',
  'exception',
  'property',
  'decorator',
  'decoratormethod',
  'classmethod',
  'staticmethod',
  'object',
  'describe',
  'envvar',
  'option',
  'cmdoption',
  'macro',
  'type',
  'member',
  'var',
  'struct',
  'enum',
  'enumerator',
  'union',
  'directive',
  'confval',
  'event',
  'setting',
]);
const SIGNATURE_PREFIX: Record<string, string> = {
  class: 'class ',
  exception: 'exception ',
  property: 'property ',
  classmethod: 'classmethod ',
  staticmethod: 'staticmethod ',
  decorator: '@',
  decoratormethod: '@',
};

function prefixFirst(items: Item[], prefix: string): Item[] {
  if (items[0]?.kind === 'text') return [{ kind: 'text', text: `${prefix} ${items[0].text}` }, ...items.slice(1)];
  return [{ kind: 'text', text: prefix }, ...items];
}

function explicitMarkup(lines: string[], i: number, state: State, out: Item[]): number {
  const first = lines[i].replace(/^\.\.\s*/, '');
  // An empty comment ("..") ends at the next blank line: an indented block after that is a block quote.
  if (!first.trim() && isBlank(lines[i + 1])) return i + 1;
  const end = indentedEnd(lines, i + 1);
  const body = lines.slice(i + 1, end);
  if (/^_/.test(first) || /^\|[^|]+\|/.test(first)) return end; // hyperlink target; substitution (read before parsing)
  const footnote = /^\[([^\]]+)\](?:\s+|$)(.*)$/.exec(first);
  if (footnote) {
    const items: Item[] = [];
    parseLines([footnote[2], ...dedent(body)], state, items, true);
    const label = /^(#.*|\*|\d+)$/.test(footnote[1]) ? '' : `[${footnote[1]}] `;
    if (items.length) out.push(...prefixFirst(items, label.trim()).filter((item) => item.text));
    return end;
  }
  const directive = DIRECTIVE.exec(first);
  if (!directive) return end; // comment
  out.push(...directiveItems(directive[1].toLowerCase(), (directive[2] ?? '').trim(), dedent(body), state));
  return end;
}

function directiveItems(fullName: string, argument: string, body: string[], state: State): Item[] {
  const name = fullName.split(':').pop() ?? fullName;
  // Lines before the first blank line are argument continuation (or, for argument-less directives,
  // the start of the content); then options (":name: value"); then the content.
  let k = 0;
  const head: string[] = [];
  while (k < body.length && !isBlank(body[k]) && !OPTION.test(body[k])) head.push(body[k++]);
  const options: Record<string, string> = {};
  while (k < body.length && OPTION.test(body[k])) {
    const match = OPTION.exec(body[k])!;
    let value = match[2] ?? '';
    k++;
    while (k < body.length && !isBlank(body[k]) && indentOf(body[k]) > 0) value += ` ${body[k++].trim()}`;
    options[match[1].toLowerCase()] = value.trim();
  }
  const content = trimBlankEdges(body.slice(k));
  const parse = (source: string[]): Item[] => {
    const items: Item[] = [];
    parseLines(source, state, items, true);
    return items;
  };

  if (fullName === 'include' || fullName === 'literalinclude') {
    state.unfollowed.add(fullName);
    if (argument) state.includes.push(argument);
  }
  if (name === 'highlight' || name === 'highlightlang') state.highlight = languageOf(argument);
  if (DROPPED_DIRECTIVES.has(fullName) || DROPPED_DIRECTIVES.has(name)) return [];
  if (CODE_DIRECTIVES.has(name)) {
    const code = trimBlankEdges(dedent(content.length ? content : head));
    if (!code.length) return [];
    const caption = options.caption ? inline(options.caption, state) : '';
    // code-block without a language highlights as `.. highlight::` says; parsed-literal is not highlighted.
    const language =
      name === 'parsed-literal'
        ? undefined
        : (languageOf(argument) ?? languageOf(options.language) ?? DIRECTIVE_LANGUAGE[name] ?? state.highlight);
    return [
      ...(caption ? [{ kind: 'text' as const, text: caption }] : []),
      codeItem(name === 'parsed-literal' ? code.map((line) => inline(line, state)).join('\n') : code.join('\n'), language),
    ];
  }
  if (name === 'math') {
    const text = [argument, ...head, ...content]
      .filter((line) => !isBlank(line))
      .join('\n')
      .trim();
    return text ? [{ kind: 'text', text }] : []; // LaTeX source, shown as it is written
  }
  if (ADMONITIONS[name]) {
    const items = parse([argument, ...head, ...(head.length || argument ? [''] : []), ...content]);
    return items.length ? prefixFirst(items, `${ADMONITIONS[name]}:`) : [];
  }
  if (VERSIONS[name]) {
    const [version = '', ...rest] = argument.split(/\s+/);
    const explanation = parse([rest.join(' '), ...head, '', ...content]);
    const label = `${VERSIONS[name]} ${version}`.trim();
    return explanation.length ? prefixFirst(explanation, `${label}:`) : [{ kind: 'text', text: `${label}.` }];
  }
  if (name === 'image') return options.alt ? [{ kind: 'text', text: inline(options.alt, state) }] : [];
  if (name === 'figure') return parse(content);
  if (name === 'list-table') return titled(argument, [listTable(content, Number(options['header-rows'] ?? 0), state)]);
  if (name === 'csv-table') return titled(argument, [csvTable(content, options, state)]);
  if (name === 'admonition') {
    const title = inline([argument, ...head].join(' '), state);
    const items = parse(content);
    return title && items.length ? prefixFirst(items, `${title}:`) : items;
  }
  if (TITLED.has(name)) return titled([argument, ...head].join(' '), parse(content));
  if (OBJECTS.has(name) || /^auto/.test(name)) {
    const signatures = [argument, ...head]
      .map((line) => unescape(line.trim()))
      .filter(Boolean)
      .map((sig) => `${SIGNATURE_PREFIX[name.replace(/^auto/, '')] ?? ''}${sig}`);
    return [...(signatures.length ? [{ kind: 'text' as const, text: signatures.join('\n') }] : []), ...parse(content)];
  }
  // Unknown directive (tabs, cards, project-specific ones): what it shows is its content.
  const items = parse(content);
  const label = inline([argument, ...head].join(' '), state);
  return items.length && label ? titled(label, items) : items;

  function titled(title: string, items: (Item | string)[]): Item[] {
    const kept = items
      .map((item) => (typeof item === 'string' ? { kind: 'text' as const, text: item } : item))
      .filter((item) => item.text.trim());
    const text = inline(title, state);
    return text ? [{ kind: 'text', text }, ...kept] : kept;
  }
}

function listTable(content: string[], headerRows: number, state: State): string {
  const lines = dedent(content);
  const rows = listItems(
    lines,
    lines.findIndex((line) => !isBlank(line)),
    BULLET,
  ).items.map((row) => {
    const rowLines = dedent(trimBlankEdges(row));
    return listItems(rowLines, 0, BULLET).items.map((cell) => {
      const out: Item[] = [];
      parseLines(cell, state, out, true);
      return textOf(out).replace(/\s+/g, ' ').trim();
    });
  });
  return tableText(rows, headerRows);
}

function csvTable(content: string[], options: Record<string, string>, state: State): string {
  const parseCsv = (text: string): string[][] =>
    Papa.parse<string[]>(text, { skipEmptyLines: true, delimiter: options.delim === 'tab' ? '\t' : options.delim || ',' }).data.map((row) =>
      row.map((cell) => inline(cell.trim(), state)),
    );
  const header = options.header ? parseCsv(options.header) : [];
  const rows = parseCsv(dedent(content).join('\n'));
  const headerRows = header.length ? 1 : Number(options['header-rows'] ?? 0);
  return tableText([...header.slice(0, 1), ...rows], headerRows);
}

// ---------------------------------------------------------------------------------------------
// Pre-pass: substitutions and labels can be used before they are defined.

function unicodeSubstitution(data: string): string {
  return data
    .replace(/\.\.\s.*$/, '')
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const code = /^(?:0x|x|\\x|U\+|u|\\u)([0-9a-f]+)$/i.exec(token) ?? /^&#x([0-9a-f]+);$/i.exec(token);
      if (code) return String.fromCodePoint(parseInt(code[1], 16));
      if (/^\d+$/.test(token)) return String.fromCodePoint(Number(token));
      return token;
    })
    .join('');
}

function prepass(lines: string[], state: State): void {
  for (let i = 0; i < lines.length; i++) {
    const substitution = /^\s*\.\.\s+\|([^|]+)\|\s+([\w:-]+)::\s*(.*)$/.exec(lines[i]);
    if (substitution) {
      const end = indentedEnd(lines, i + 1, indentOf(lines[i]) + 1);
      const continuation = lines
        .slice(i + 1, end)
        .filter((line) => !OPTION.test(line.trim()))
        .map((line) => line.trim());
      const data = [substitution[3], ...continuation].join(' ').trim();
      const kind = substitution[2].toLowerCase();
      const value = kind === 'replace' ? data : kind === 'unicode' ? unicodeSubstitution(data) : '';
      state.substitutions.set(substitution[1], value);
      continue;
    }
    const label = /^\.\.\s+_([^:`][^:]*|`[^`]+`):\s*$/.exec(lines[i]);
    if (!label) continue;
    let j = i + 1;
    while (j < lines.length && (isBlank(lines[j]) || /^\.\.\s+_[^:]+:\s*$/.test(lines[j]))) j++;
    const title = adornmentOf(lines[j]) ? lines[j + 1] : adornmentOf(lines[j + 1]) ? lines[j] : undefined;
    if (title && !isBlank(title)) state.labels.set(normalizeLabel(label[1].replace(/`/g, '')), title.trim());
  }
  // Replacement text is itself inline markup; labels' titles too.
  for (const [name, value] of state.substitutions) state.substitutions.set(name, inline(value, state));
  for (const [name, value] of state.labels) state.labels.set(name, inline(value, state));
}

export function rstToDocument(source: string): {
  title?: string;
  blocks: Block[];
  metadata: Record<string, unknown>;
  unfollowed: string[];
  includes: string[];
} {
  const lines = source
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => expandTabs(line).trimEnd());
  const state = emptyState();
  prepass(lines, state);
  parseLines(lines, state, state.root, false);
  const blocks: Block[] = state.root
    .filter((item) => item.text.trim())
    .map((item): Block => {
      if (item.kind === 'heading') return { type: 'heading', level: item.level, text: item.text };
      if (item.kind === 'code')
        return item.language ? { type: 'code', language: item.language, text: item.text } : { type: 'code', text: item.text };
      return { type: 'text', text: item.text };
    });
  const title = state.root.find((item) => item.kind === 'heading')?.text;
  return { title, blocks, metadata: state.metadata, unfollowed: [...state.unfollowed], includes: state.includes };
}

export const rstParser: Parser = {
  name: 'rst',
  extensions: ['rst', 'rest'],
  mediaTypes: ['text/x-rst', 'text/prs.fallenstein.rst'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes);
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty reStructuredText file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not reStructuredText');
    let parsed: ReturnType<typeof rstToDocument>;
    try {
      parsed = rstToDocument(text);
    } catch (error) {
      throw asParseError('reStructuredText', error); // e.g. indentation nested past the stack
    }
    const { blocks, metadata, includes } = parsed;
    const hasOwnText = blocks.some((block) => block.type !== 'heading');
    // A page that only pulls in another file (changes.rst → ../CHANGES.rst) is not broken: the pipeline ingests it through its includes.
    if (!hasOwnText && !includes.length) throw new DossierError('empty-document', 'no text in reStructuredText file');
    // Section levels are relative in reStructuredText (the first title is always level 1): only a title that opens the page counts.
    const docTitle =
      (typeof metadata.title === 'string' && metadata.title) || titleFromHeadings(blocks, { firstH1: false }) || titleFromFileName(path);
    return {
      title: docTitle.replace(/\s+/g, ' ').trim().slice(0, 300),
      mediaType: 'text/x-rst',
      blocks,
      metadata,
      ...(includes.length ? { includes, hasOwnText } : {}),
    };
  },
};
