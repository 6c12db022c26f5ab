import { sql, type Sql, type SqlPiece } from './sql.ts';

/** A query as a driver takes it. */
export interface RenderedQuery {
  text: string;
  params: unknown[];
}

/**
 * What differs between SQLite and PostgreSQL in the queries both stores share: placeholders, and the
 * few expressions written differently. Everything else is the same SQL text.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  render(query: Sql): RenderedQuery;
  /** A condition that always holds, and one that never does. */
  readonly always: Sql;
  readonly never: Sql;
  /** `expression` equals one of `values` (not empty); `elementType` is their SQL type. */
  isOneOf(expression: Sql, values: readonly unknown[], elementType: 'text' | 'bigint'): Sql;
  /** A LIMIT clause; none when `count` is undefined or negative. An OFFSET may follow. */
  limit(count: number | undefined): Sql;
  /** An ORDER BY key compared by code point, whatever the database's collation. */
  inCodePointOrder(expression: Sql): Sql;
  /** Locks the rows read from `alias` until the transaction ends, where the database has row locks. */
  lockRows(alias: string): Sql;
  /** How the document filter (filter.ts) reads and compares values. */
  readonly filter: {
    /** A document column as a comparable value. */
    column(expression: Sql): Sql;
    /** `column.<path>` of a JSON column, SQL NULL when missing or JSON null. `path` holds validated identifiers. */
    jsonPath(column: Sql, path: readonly string[]): Sql;
    /** A value compared with either of the above. */
    value(value: unknown): Sql;
  };
}

/**
 * With `reuse`, a value piece met again (one fragment embedded twice) takes the placeholder it got
 * first, so the value is bound once; without, placeholders are positional and every use binds again.
 */
function render(query: Sql, placeholder: (index: number) => string, bind: (value: unknown) => unknown, reuse: boolean): RenderedQuery {
  let text = '';
  const params: unknown[] = [];
  const seen = new Map<SqlPiece, string>();
  for (const piece of query.pieces) {
    if ('text' in piece) {
      text += piece.text;
      continue;
    }
    let name = reuse ? seen.get(piece) : undefined;
    if (name === undefined) {
      params.push(bind(piece.value));
      name = placeholder(params.length);
      if (reuse) seen.set(piece, name);
    }
    text += name;
  }
  return { text, params };
}

export const sqlite: Dialect = {
  name: 'sqlite',
  // better-sqlite3 binds no booleans; SQLite stores them as 1 and 0 anyway.
  render: (query) =>
    render(
      query,
      () => '?',
      (value) => (typeof value === 'boolean' ? Number(value) : value),
      false,
    ),
  always: sql`1=1`,
  never: sql`1=0`,
  isOneOf: (expression, values) => sql`${expression} IN (${sql.join(values)})`,
  // SQLite has no OFFSET without LIMIT; a negative LIMIT means none.
  limit: (count) => sql`LIMIT ${count ?? -1}`,
  // SQLite's default collation (BINARY) already compares code points for UTF-8 text.
  inCodePointOrder: (expression) => expression,
  // No row locks: a SQLite write transaction holds the whole database.
  lockRows: () => sql.empty,
  filter: {
    column: (expression) => expression,
    jsonPath: (column, path) => sql`json_extract(${column}, ${sql.raw(`'$.${path.join('.')}'`)})`,
    value: (value) => sql`${value}`,
  },
};

export const postgres: Dialect = {
  name: 'postgres',
  render: (query) =>
    render(
      query,
      (index) => `$${index}`,
      (value) => value,
      true,
    ),
  always: sql`TRUE`,
  never: sql`FALSE`,
  // One array parameter, whatever the count (and no limit on parameters per statement to meet).
  isOneOf: (expression, values, elementType) => sql`${expression} = ANY(${[...values]}::${sql.raw(elementType)}[])`,
  limit: (count) => (count !== undefined && count >= 0 ? sql`LIMIT ${count}` : sql.empty),
  // The database's default collation may be a locale's; "C" compares bytes, which is code point order in UTF-8.
  inCodePointOrder: (expression) => sql`${expression} COLLATE "C"`,
  lockRows: (alias) => sql`FOR UPDATE OF ${sql.raw(alias)}`,
  /**
   * Every side of a comparison is jsonb: the filter compiler does not tell `value` which column it
   * meets, and jsonb compares numbers as numbers and strings as strings, as SQLite's json_extract does.
   * JSON null reads as SQL NULL (like json_extract), so $eq null / $ne treat it as missing.
   */
  filter: {
    column: (expression) => sql`to_jsonb(${expression})`,
    jsonPath: (column, path) => sql`nullif(${column} #> ${sql.raw(`'{${path.join(',')}}'`)}, 'null'::jsonb)`,
    value: (value) => sql`${JSON.stringify(value)}::jsonb`,
  },
};
