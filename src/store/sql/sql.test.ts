import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postgres, sqlite } from './dialect.ts';
import { sql } from './sql.ts';

describe('sql template', () => {
  it('makes every interpolated value a parameter, in order', () => {
    const query = sql`SELECT * FROM documents WHERE id = ${7} AND source = ${"a'b.txt"}`;
    assert.deepEqual(sqlite.render(query), { text: 'SELECT * FROM documents WHERE id = ? AND source = ?', params: [7, "a'b.txt"] });
    assert.deepEqual(postgres.render(query), { text: 'SELECT * FROM documents WHERE id = $1 AND source = $2', params: [7, "a'b.txt"] });
  });

  it('numbers the parameters of nested fragments across the whole query', () => {
    const inner = sql`col.name = ${'docs'} AND d.bytes > ${10}`;
    const middle = sql`(${inner}) OR d.id = ${3}`;
    const query = sql`SELECT d.id FROM d WHERE d.title = ${'t'} AND ${middle} LIMIT ${5}`;
    assert.deepEqual(postgres.render(query), {
      text: 'SELECT d.id FROM d WHERE d.title = $1 AND (col.name = $2 AND d.bytes > $3) OR d.id = $4 LIMIT $5',
      params: ['t', 'docs', 10, 3, 5],
    });
    assert.equal(sqlite.render(query).text, 'SELECT d.id FROM d WHERE d.title = ? AND (col.name = ? AND d.bytes > ?) OR d.id = ? LIMIT ?');
    assert.deepEqual(sqlite.render(query).params, ['t', 'docs', 10, 3, 5]);
  });

  it('joins values and fragments with a separator', () => {
    assert.deepEqual(postgres.render(sql`id IN (${sql.join([1, 2, 3])})`), { text: 'id IN ($1, $2, $3)', params: [1, 2, 3] });
    const parts = [sql`a = ${1}`, sql`b = ${2}`, sql`c IS NULL`];
    assert.deepEqual(sqlite.render(sql.join(parts, sql` AND `)), { text: 'a = ? AND b = ? AND c IS NULL', params: [1, 2] });
    assert.deepEqual(postgres.render(sql`x${sql.join([])}y`), { text: 'xy', params: [] });
  });

  it('splices raw text in as SQL, never as a parameter', () => {
    const table = sql.raw('chunk_terms');
    assert.deepEqual(postgres.render(sql`SELECT term FROM ${table} WHERE term = ${'x'}`), {
      text: 'SELECT term FROM chunk_terms WHERE term = $1',
      params: ['x'],
    });
    assert.deepEqual(sqlite.render(sql`a${sql.empty}b${sql.raw('')}c`), { text: 'abc', params: [] });
  });

  it('binds booleans as 1 and 0 in SQLite, as booleans in PostgreSQL', () => {
    const query = sql`flag = ${true} OR flag = ${false}`;
    assert.deepEqual(sqlite.render(query).params, [1, 0]);
    assert.deepEqual(postgres.render(query).params, [true, false]);
  });

  it('binds a fragment used twice once in PostgreSQL, twice in SQLite', () => {
    const where = sql`col.name = ${'docs'}`;
    const query = sql`SELECT (SELECT count(*) FROM c WHERE ${where}) AS n FROM d WHERE ${where} AND d.id = ${1}`;
    assert.deepEqual(postgres.render(query), {
      text: 'SELECT (SELECT count(*) FROM c WHERE col.name = $1) AS n FROM d WHERE col.name = $1 AND d.id = $2',
      params: ['docs', 1],
    });
    assert.deepEqual(sqlite.render(query), {
      text: 'SELECT (SELECT count(*) FROM c WHERE col.name = ?) AS n FROM d WHERE col.name = ? AND d.id = ?',
      params: ['docs', 'docs', 1],
    });
    // The same value written twice is two parameters: only a shared fragment is bound once.
    assert.deepEqual(postgres.render(sql`${1} + ${1}`), { text: '$1 + $2', params: [1, 1] });
  });
});

describe('dialects', () => {
  it('write a list membership as an IN list (SQLite) or one array parameter (PostgreSQL)', () => {
    const query = sql`WHERE ${sqlite.isOneOf(sql`c.id`, [4, 5], 'bigint')}`;
    assert.deepEqual(sqlite.render(query), { text: 'WHERE c.id IN (?, ?)', params: [4, 5] });
    assert.deepEqual(postgres.render(sql`WHERE ${postgres.isOneOf(sql`col.name`, ['a', 'b'], 'text')}`), {
      text: 'WHERE col.name = ANY($1::text[])',
      params: [['a', 'b']],
    });
  });

  it('leave LIMIT out only where OFFSET can stand alone', () => {
    assert.deepEqual(sqlite.render(sqlite.limit(undefined)), { text: 'LIMIT ?', params: [-1] });
    assert.deepEqual(sqlite.render(sqlite.limit(10)), { text: 'LIMIT ?', params: [10] });
    assert.deepEqual(postgres.render(postgres.limit(undefined)), { text: '', params: [] });
    assert.deepEqual(postgres.render(postgres.limit(-1)), { text: '', params: [] });
    assert.deepEqual(postgres.render(postgres.limit(0)), { text: 'LIMIT $1', params: [0] });
  });

  it('render the constant conditions, the row lock and the code point order', () => {
    assert.equal(sqlite.render(sql`${sqlite.always} AND ${sqlite.never}`).text, '1=1 AND 1=0');
    assert.equal(postgres.render(sql`${postgres.always} AND ${postgres.never}`).text, 'TRUE AND FALSE');
    assert.equal(sqlite.render(sql`SELECT 1 ${sqlite.lockRows('d')}`).text, 'SELECT 1 ');
    assert.equal(postgres.render(sql`SELECT 1 ${postgres.lockRows('d')}`).text, 'SELECT 1 FOR UPDATE OF d');
    assert.equal(sqlite.render(sqlite.inCodePointOrder(sql`col.name`)).text, 'col.name');
    assert.equal(postgres.render(postgres.inCodePointOrder(sql`col.name`)).text, 'col.name COLLATE "C"');
  });

  it('read JSON paths and compare filter values each in its own way', () => {
    const compare = (dialect: typeof sqlite) =>
      dialect.render(
        sql`${dialect.filter.jsonPath(sql`d.metadata`, ['a', 'b'])} = ${dialect.filter.value(2024)} AND ${dialect.filter.column(sql`d.title`)} = ${dialect.filter.value('x')}`,
      );
    assert.deepEqual(compare(sqlite), { text: "json_extract(d.metadata, '$.a.b') = ? AND d.title = ?", params: [2024, 'x'] });
    assert.deepEqual(compare(postgres), {
      text: "nullif(d.metadata #> '{a,b}', 'null'::jsonb) = $1::jsonb AND to_jsonb(d.title) = $2::jsonb",
      params: ['2024', '"x"'],
    });
  });
});
