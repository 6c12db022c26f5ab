import type { GraphCommunityLine } from '../../evidence/evidence-format.ts';

/** Themes an answer to a collection-wide question lists: the largest communities search_graph showed. */
const THEMES_SHOWN = 5;

/**
 * A collection-wide question ("what are the main themes?") answered from the knowledge graph's
 * communities: one line per community, its title (its most central entities) and the first
 * sentence of its summary, cited by the evidence ids the summary was read from. Undefined when no
 * community with a cited summary was shown.
 */
export function communityThemes(communities: readonly GraphCommunityLine[]): string | undefined {
  const cited = communities.filter((community) => community.ids.length > 0 && community.summary);
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const community of [...cited].sort((a, b) => b.size - a.size)) {
    if (seen.has(community.title) || lines.length >= THEMES_SHOWN) continue;
    seen.add(community.title);
    const first = /^.*?[.!?](?=\s|$)/.exec(community.summary)?.[0] ?? community.summary;
    lines.push(`- ${community.title}: ${first} [${community.ids[0]}]`);
  }
  return lines.length ? `The main themes, from the knowledge graph's communities:\n${lines.join('\n')}` : undefined;
}
