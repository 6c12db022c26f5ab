/** Markdown beyond CommonMark: MyST directives and roles, front matter as document metadata. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParsedDocument } from '../types.ts';
import { parseDocument } from './index.ts';

const parse = (text: string) => parseDocument({ path: 'page.md', bytes: new TextEncoder().encode(text) });
const texts = (doc: ParsedDocument) => doc.blocks.map((b) => b.text);
const fence = '```';

test('markdown: MyST admonitions keep their body as text, code directives stay code, toctrees go', async () => {
  const doc = await parse(
    [
      '# Guide',
      '',
      `${fence}{note}`,
      'Keep the **body** of notes.',
      fence,
      '',
      `${fence}{warning} Mind the gap.`,
      fence,
      '',
      ':::{tip}',
      ':class: dropdown',
      'A colon-fenced tip.',
      '',
      '- with a list',
      ':::',
      '',
      '::::{admonition} Custom title',
      ':::{note}',
      'Nested note.',
      ':::',
      '::::',
      '',
      `${fence}{code-block} python`,
      ':linenos:',
      'def f():',
      '    return 1',
      fence,
      '',
      `${fence}{toctree}`,
      ':maxdepth: 2',
      '',
      'intro',
      'api',
      fence,
      '',
      `${fence}{versionadded} 2.1`,
      'The flag.',
      fence,
      '',
      ':::warning Heads up',
      'Docusaurus style.',
      ':::',
      '',
      `${fence}{eval-rst}`,
      '.. note:: Written in RST with :func:`render`.',
      fence,
      '',
      `${fence}python`,
      'print("plain")',
      fence,
    ].join('\n'),
  );
  const all = texts(doc);
  assert.ok(all.includes('Note: Keep the body of notes.'), all.join(' | '));
  assert.ok(all.includes('Warning: Mind the gap.'));
  assert.ok(all.includes('Tip: A colon-fenced tip.'));
  assert.ok(all.includes('- with a list'));
  assert.ok(all.includes('Custom title: Note: Nested note.'));
  assert.ok(all.includes('def f():\n    return 1'), 'code-block body verbatim, options dropped');
  assert.ok(all.includes('Added in version 2.1: The flag.'));
  assert.ok(all.includes('Heads up: Docusaurus style.'));
  assert.ok(all.includes('Note: Written in RST with render.'), '{eval-rst} bodies are read as reStructuredText');
  assert.ok(all.includes('print("plain")'));
  const joined = all.join('\n');
  for (const gone of ['{note}', '{tip}', ':::', 'linenos', 'maxdepth', 'intro\napi', 'dropdown'])
    assert.ok(!joined.includes(gone), `${gone} is gone`);
});

test('markdown: MyST roles reduce to their text and (label)= targets are dropped', async () => {
  const doc = await parse(
    [
      '(intro)=',
      '# Intro',
      '',
      'See {ref}`the setup <setup>`, {py:class}`~pkg.mod.Client` and {doc}`guides/install`.',
      '',
      '(setup)=',
      'Setup text.',
    ].join('\n'),
  );
  assert.deepEqual(texts(doc), ['Intro', 'See the setup, Client and install.', 'Setup text.']);
});

test('markdown: mkdocstrings "::: package.name" becomes the name, not markup', async () => {
  const doc = await parse('# API\n\n::: httpx.request\n    :docstring:\n\n::: httpx.get\n    :docstring:\n\n## Client\n\nText.');
  assert.deepEqual(texts(doc), ['API', 'httpx.request', 'httpx.get', 'Client', 'Text.']);
});

test('markdown: YAML front matter keys become metadata, title the title', async () => {
  const doc = await parse(
    [
      '---',
      'title: "Budget 2024"',
      'year: 2024',
      'tags: [finance, plan]',
      'author:',
      '  name: Ada',
      '  team: coast',
      'date: 2024-03-01',
      'draft: false',
      '---',
      '',
      '# Heading',
      '',
      'Body.',
    ].join('\n'),
  );
  assert.equal(doc.title, 'Budget 2024');
  assert.deepEqual(doc.metadata, {
    title: 'Budget 2024',
    year: 2024,
    tags: ['finance', 'plan'],
    author: { name: 'Ada', team: 'coast' },
    date: '2024-03-01',
    draft: false,
  });
  assert.deepEqual(texts(doc), ['Heading', 'Body.']);
});

test('markdown: TOML front matter; a leading thematic break is not front matter', async () => {
  const toml = await parse(['+++', 'title = "From TOML"', 'year = 2023', 'tags = ["a", "b"]', '+++', '', 'Body.'].join('\n'));
  assert.equal(toml.title, 'From TOML');
  assert.deepEqual(toml.metadata, { title: 'From TOML', year: 2023, tags: ['a', 'b'] });
  assert.deepEqual(texts(toml), ['Body.']);

  const prose = await parse(['---', 'Just a sentence between rules.', '---', '', 'More.'].join('\n'));
  assert.deepEqual(prose.metadata, {});
  assert.ok(texts(prose).join('\n').includes('Just a sentence between rules.'));

  const empty = await parse('---\n---\n# Only\n\nText.');
  assert.deepEqual([empty.title, empty.metadata], ['Only', {}]);
});
