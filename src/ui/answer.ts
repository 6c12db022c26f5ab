// Answers with clickable citation markers, read by the client's one citation grammar.
import { parseCitationMarkers, type Citation } from '../client/index.ts';
import { el } from './dom.ts';
import { openCitation, openPanel } from './panel.ts';

type CitationLookup = (id: string) => Citation | undefined;

/**
 * Renders an answer into `container`: one block per line (`#` lines as headings, `-` lines as list
 * items), every `[E3]` a button that opens the cited chunk. `lookup(id)` gives the citation, once known.
 */
export function renderAnswer(container: HTMLElement, text: string, lookup: CitationLookup): void {
  const blocks: HTMLElement[] = [];
  let list: HTMLUListElement | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      list = undefined;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      list = undefined;
      blocks.push(withCitations(el(heading[1].length <= 2 ? 'h3' : 'h4'), heading[2], lookup));
    } else if (item) {
      if (!list) blocks.push((list = el('ul')));
      list.append(withCitations(el('li'), item[1], lookup));
    } else {
      list = undefined;
      blocks.push(withCitations(el('p'), line, lookup));
    }
  }
  container.replaceChildren(...blocks);
}

function withCitations(block: HTMLElement, text: string, lookup: CitationLookup): HTMLElement {
  let at = 0;
  for (const marker of parseCitationMarkers(text)) {
    if (marker.start > at) block.append(text.slice(at, marker.start));
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
    block.append(group);
    at = marker.end;
  }
  if (at < text.length) block.append(text.slice(at));
  return block;
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
