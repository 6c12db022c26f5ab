/**
 * A dialect-neutral query: trusted SQL text and bound values, in order. Both stores write a shared
 * query once with the `sql` tag; a Dialect (dialect.ts) renders it for its driver afterwards, so
 * placeholders (`?` or `$1`…) are numbered only when the whole query is known.
 */
export type SqlPiece = { readonly text: string } | { readonly value: unknown };

export class Sql {
  /** Flat: nested fragments are spliced in when built, so rendering is a single pass. */
  readonly pieces: readonly SqlPiece[];

  constructor(pieces: readonly SqlPiece[]) {
    this.pieces = pieces;
  }
}

function tag(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const pieces: SqlPiece[] = [];
  strings.forEach((text, i) => {
    if (text) pieces.push({ text });
    if (i < values.length) {
      const value = values[i];
      if (value instanceof Sql) pieces.push(...value.pieces);
      else pieces.push({ value });
    }
  });
  return new Sql(pieces);
}

/** `items` separated by `separator`; an item that is not a fragment becomes a parameter. */
function join(items: readonly unknown[], separator: Sql = tag`, `): Sql {
  const pieces: SqlPiece[] = [];
  items.forEach((item, i) => {
    if (i > 0) pieces.push(...separator.pieces);
    if (item instanceof Sql) pieces.push(...item.pieces);
    else pieces.push({ value: item });
  });
  return new Sql(pieces);
}

/** Trusted text spliced in as it is (identifiers and constants the code chose, never input). */
function raw(text: string): Sql {
  return new Sql(text ? [{ text }] : []);
}

/**
 * The query tag: `sql\`SELECT … WHERE id = ${id}\`` makes `id` a parameter; an interpolated Sql
 * fragment is nested as SQL.
 */
export const sql = Object.assign(tag, { join, raw, empty: new Sql([]) });
