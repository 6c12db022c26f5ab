import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DossierError } from '../../errors/index.ts';
import { postgres, sqlite } from '../sql/dialect.ts';
import { documentWhere, scopeCondition } from './scope.ts';

describe('scope and filter conditions', () => {
  it('render one shared condition for both dialects, the filter numbered after the scope', () => {
    const where = documentWhere(
      postgres,
      { collections: ['a', 'b'] },
      { 'metadata.year': { $gte: 2020 }, mediaType: { $in: ['text/plain', 'text/html'] } },
    );
    assert.deepEqual(postgres.render(where), {
      text: "col.name = ANY($1::text[]) AND (nullif(d.metadata #> '{year}', 'null'::jsonb) >= $2::jsonb AND to_jsonb(d.media_type) IN ($3::jsonb, $4::jsonb))",
      params: [['a', 'b'], '2020', '"text/plain"', '"text/html"'],
    });
    const same = documentWhere(
      sqlite,
      { collections: ['a', 'b'] },
      { 'metadata.year': { $gte: 2020 }, mediaType: { $in: ['text/plain', 'text/html'] } },
    );
    assert.deepEqual(sqlite.render(same), {
      text: "col.name IN (?, ?) AND (json_extract(d.metadata, '$.year') >= ? AND d.media_type IN (?, ?))",
      params: ['a', 'b', 2020, 'text/plain', 'text/html'],
    });
  });

  it('holds for every collection, none for an empty list, and refuses anything else', () => {
    assert.equal(sqlite.render(documentWhere(sqlite, { collections: '*' })).text, '1=1 AND (1=1)');
    assert.equal(postgres.render(scopeCondition(postgres, { collections: [] })).text, 'FALSE');
    assert.throws(
      () => scopeCondition(sqlite, { collections: 'docs' as unknown as string[] }),
      (error: unknown) => DossierError.isInstance(error) && error.code === 'bad-input',
    );
  });

  it('refuses a field that is not a document field, even one every object has', () => {
    for (const field of ['body', 'constructor']) {
      assert.throws(() => documentWhere(sqlite, { collections: '*' }, { [field]: 'x' }), /unknown field/);
    }
  });
});
