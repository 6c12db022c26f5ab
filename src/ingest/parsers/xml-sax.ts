/** Streaming XML helpers over htmlparser2 (xmlMode): the OOXML/ODF/EPUB glue reads parts with them. */
import { Parser as SaxParser, type Handler } from 'htmlparser2';

export type Attributes = Record<string, string>;

export function saxParse(xml: string, handler: Partial<Handler>): void {
  const parser = new SaxParser(handler, { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true });
  parser.write(xml);
  parser.end();
}

/** Attributes of every element named `tag`, in document order. */
export function elementsAttributes(xml: string, tag: string): Attributes[] {
  const found: Attributes[] = [];
  saxParse(xml, {
    onopentag(name, attribs) {
      if (name === tag) found.push(attribs);
    },
  });
  return found;
}

/** Text content of the first element named `tag`. */
export function firstElementText(xml: string, tag: string): string | undefined {
  let depth = 0;
  let done = false;
  let text = '';
  saxParse(xml, {
    onopentag(name) {
      if (done) return;
      if (name === tag || depth > 0) depth++;
    },
    ontext(data) {
      if (depth > 0 && !done) text += data;
    },
    onclosetag() {
      if (depth > 0 && !done) {
        depth--;
        if (depth === 0) done = true;
      }
    },
  });
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean || undefined;
}

/** Relationship id → target, from an OOXML `.rels` part. */
export function relationships(xml: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!xml) return map;
  for (const rel of elementsAttributes(xml, 'Relationship')) if (rel.Id && rel.Target) map.set(rel.Id, rel.Target);
  return map;
}
