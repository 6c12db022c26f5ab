/**
 * Lower-case words a name may hold between its capitalised words ("Bank of America", "Ludwig van
 * Beethoven", "Tristan da Cunha"). One set, so planning (text/entities.ts) and answering
 * (text/spans.ts) split names the same way.
 */
export const NAME_CONNECTORS: ReadonlySet<string> = new Set([
  'of',
  'the',
  'for',
  'and',
  'de',
  'von',
  'van',
  'der',
  'den',
  'la',
  'le',
  'du',
  'del',
  'da',
  'di',
  'dos',
  'das',
  'y',
  '&',
  'upon',
]);
