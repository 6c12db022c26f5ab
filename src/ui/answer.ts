// Answers with clickable citation markers, read by the client's one citation grammar, and code as code.
import { parseCitationMarkers, type Citation } from '../client/index.ts';
import { splitCodeBlocks } from '../protocol/code-blocks.ts';
import { el } from './dom.ts';
import { openCitation, openPanel } from './panel.ts';
import { codeBlock, inlineNodes } from './rich-text.ts';

type CitationLookup = (id: string) => Citation | undefined;

/**
 * Renders an answer into `container`: fenced code as a code block (the citations after its closing
 * fence beside it), and one block per other line (`#` lines as headings, `-` lines as list items),
 * `inline code` as code and every `[E3]` a button that opens the cited chunk. `lookup(id)` gives the
 * citation, once known. An answer still streaming may end inside a fence: it shows as code so far.
 */
export function renderAnswer(container: HTMLElement, text: string, lookup: CitationLookup): void {
  const blocks: HTMLElement[] = [];
  const cited = (block: HTMLElement, line: string) => {
    block.append(...inlineNodes(line, (plain) => withCitations(plain, lookup)));
    return block;
  };
  for (const part of splitCodeBlocks(text)) {
    if (part.kind === 'code') {
      blocks.push(codeBlock(part));
      if (part.citations) blocks.push(cited(el('p', { className: 'code-cites' }), part.citations));
      continue;
    }
    let list: HTMLUListElement | undefined;
    for (const line of part.text.split('\n')) {
      if (!line.trim()) {
        list = undefined;
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      const item = /^\s*[-*]\s+(.*)$/.exec(line);
      if (heading) {
        list = undefined;
        blocks.push(cited(el(heading[1].length <= 2 ? 'h3' : 'h4'), heading[2]));
      } else if (item) {
        if (!list) blocks.push((list = el('ul')));
        list.append(cited(el('li'), item[1]));
      } else {
        list = undefined;
        blocks.push(cited(el('p'), line));
      }
    }
  }
  container.replaceChildren(...blocks);
}

/** Plain answer text as text and marker buttons. */
function withCitations(text: string, lookup: CitationLookup): Array<Node | string> {
  const nodes: Array<Node | string> = [];
  let at = 0;
  for (const marker of parseCitationMarkers(text)) {
    if (marker.start > at) nodes.push(text.slice(at, marker.start));
    const group = el('span', { className: 'cites' });
    for (const id of marker.ids) {
      if (marker.unresolved) {
        group.append(
          el('span', { className: 'cite unresolved', title: `${id}: this citation does not match any passage read`, text: `${id}?` }),
        );
        continue;
      }
      const citation = lookup(id);
      group.append(
        el('button', {
          type: 'button',
          className: citation ? 'cite' : 'cite pending',
          'data-cite': id,
          'aria-label': citation ? `Citation ${id}: ${citation.title}` : `Citation ${id}`,
          text: id,
        }),
      );
    }
    nodes.push(group);
    at = marker.end;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return nodes;
}

/** The citations an answer element holds, by id (set by the run view or the loaded message). */
const citationStore = new WeakMap<Element, Map<string, Citation>>();
export function citationsOf(holder: Element): Map<string, Citation> {
  let map = citationStore.get(holder);
  if (!map) citationStore.set(holder, (map = new Map()));
  return map;
}

/** One listener for every marker on the page; the marker's message knows its citations. */
export function setUpCitationMarkers(): void {
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-cite]') : null;
    if (!button) return;
    const id = button.dataset.cite!;
    const holder = button.closest('[data-citations]');
    const citation = holder ? citationsOf(holder).get(id) : undefined;
    if (citation) openCitation(citation, button);
    else openPanel(id, [el('p', { text: 'This citation is not resolved yet; it arrives with the answer.' })], button);
  });
}
