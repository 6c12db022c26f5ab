import type { Segment } from './sentences.ts';

/** A code literal on its own says nothing: "None", "True", "null". */
const LITERAL = /^(?:None|True|False|null|nil|undefined|NaN)$/;

/** Whether the brackets and quotes of a span close within it ("Response(content" does not). */
function balanced(text: string): boolean {
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const open: string[] = [];
  for (const ch of text) {
    if ('([{'.includes(ch)) open.push(ch);
    else if (ch in pairs && open.pop() !== pairs[ch]) return false;
  }
  return open.length === 0 && (text.match(/["`]/g)?.length ?? 0) % 2 === 0;
}

/** The fields of a key–value row ("setting: refresh interval; default: 30") with where each value starts. */
function rowFields(row: string): Array<{ label: string; start: number; end: number }> {
  const fields: Array<{ label: string; start: number; end: number }> = [];
  let at = 0;
  for (const part of row.split('; ')) {
    const colon = part.indexOf(': ');
    if (colon > 0) fields.push({ label: part.slice(0, colon), start: at + colon + 2, end: at + part.length });
    at += part.length + 2;
  }
  return fields;
}

/**
 * Whether a span can stand as an answer's headline: a complete phrase, never a field label ("Note"
 * of "Note: …", a table row's "Description"), a code fragment ("Response(content"), a cross-reference
 * ("See Using …"), a reference number ("#2840") or a lone code literal ("None"). In a table row, when
 * some field is labelled with a word of the question ("default"), the span is that field's value.
 */
export function isHeadline(
  span: { text: string; start: number },
  segment: Segment,
  asked: ReadonlySet<string>,
  stem: (word: string) => string,
): boolean {
  const text = span.text.trim();
  const before = segment.text.slice(0, span.start);
  const after = segment.text.slice(span.start + span.text.length);
  if (/^\s*:(?:\s|$)/.test(after) && /(?:^|;\s*)$/.test(before)) return false;
  if (!balanced(text) || /[(=,]$/.test(text)) return false;
  if (/^see\b/i.test(text)) return false;
  if (/^\d+$/.test(text) && /#\s*$/.test(before)) return false;
  if (LITERAL.test(text)) return false;
  if (segment.kind === 'row') {
    const fields = rowFields(segment.text);
    const askedFields = fields.filter((f) => f.label.split(/\s+/).some((word) => asked.has(stem(word))));
    const own = fields.find((f) => span.start >= f.start && span.start < f.end);
    if (askedFields.length > 0 && own && !askedFields.includes(own)) return false;
  }
  return true;
}
