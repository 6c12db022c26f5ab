/** Markdown beyond CommonMark: MyST directives and roles, front matter as document metadata. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Block, ParsedDocument } from '../types.ts';
import { parseDocument } from './index.ts';

const parse = (text: string, path = 'page.md') => parseDocument({ path, bytes: new TextEncoder().encode(text) });
/** The blocks as [type, language or level, text]: what the chunker will lay out. */
const shape = (doc: ParsedDocument) =>
  doc.blocks.map((b: Block) => [b.type, b.type === 'code' ? (b.language ?? '') : b.type === 'heading' ? b.level : '', b.text]);
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
  assert.ok(
    doc.blocks.some((b) => b.type === 'code' && b.language === 'python' && b.text === 'def f():\n    return 1'),
    'a {code-block} is a code block with its language, body verbatim, options dropped',
  );
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

test('markdown: fenced and indented code are code blocks with their language', async () => {
  const doc = await parse(
    [
      'Install it with:',
      '',
      `${fence}console title="shell"`,
      '$ pip install httpx',
      fence,
      '',
      '~~~{.python}',
      'import httpx',
      '',
      'r = httpx.get("https://example.org")',
      '~~~',
      '',
      'Indented:',
      '',
      '    for x in y:',
      '        print(x)',
      '',
      `${fence}`,
      'no language',
      fence,
    ].join('\n'),
  );
  assert.deepEqual(shape(doc), [
    ['text', '', 'Install it with:'],
    ['code', 'console', '$ pip install httpx'],
    ['code', 'python', 'import httpx\n\nr = httpx.get("https://example.org")'],
    ['text', '', 'Indented:'],
    ['code', '', 'for x in y:\n    print(x)'],
    ['code', '', 'no language'],
  ]);
});

test('markdown: a code block inside a list item is its own block between the items', async () => {
  const doc = await parse(
    [
      '1. Install black.',
      '',
      `   ${fence}console`,
      '   $ pip install black',
      `   ${fence}`,
      '',
      '2. Configure it.',
      '   - nested item',
    ].join('\n'),
  );
  assert.deepEqual(shape(doc), [
    ['text', '', '1. Install black.'],
    ['code', 'console', '$ pip install black'],
    ['text', '', '2. Configure it.\n  - nested item'],
  ]);
});

test('markdown: MkDocs admonitions and content tabs read as text, not as indented code', async () => {
  const doc = await parse(
    [
      '!!! note',
      '    The `params` argument is not supported.',
      '',
      '??? abstract "API Reference"',
      '    ::: starlette.testclient.TestClient',
      '',
      '=== "Sync"',
      '',
      '    Use a client:',
      '',
      `    ${fence}python`,
      '    client = httpx.Client()',
      `    ${fence}`,
      '',
      'After.',
    ].join('\n'),
  );
  assert.deepEqual(shape(doc), [
    ['text', '', 'Note: The params argument is not supported.'],
    ['text', '', 'API Reference: starlette.testclient.TestClient'],
    ['text', '', 'Sync: Use a client:'],
    ['code', 'python', 'client = httpx.Client()'],
    ['text', '', 'After.'],
  ]);
});

test('markdown: the title is the front-matter title, else the first H1, else an opening heading, else the file name', async () => {
  const title = async (text: string, path = 'docs/page.md') => (await parse(text, path)).title;
  assert.equal(await title('---\ntitle: From front matter\n---\n# Heading\n\nText.'), 'From front matter');
  assert.equal(await title('Intro text.\n\n## Section\n\nMore.\n\n# The H1\n\nText.'), 'The H1');
  assert.equal(await title('<!-- a comment -->\n\n## Opening heading\n\nText.\n\n### Deeper\n\nText.'), 'Opening heading');
  // A heading after text names a section, not the page (Starlette's schemas.md and its "Third party packages").
  assert.equal(await title('Starlette supports schemas.\n\n### Third party packages\n\nText.', 'docs/schemas.md'), 'Schemas');
  assert.equal(await title('Text first.\n\n## A section', 'docs/config_file.md'), 'Config file');
  assert.equal(await title('Text first.', 'docs/release-notes.md'), 'Release notes');
  // An opening heading with siblings at its level is the first section of a list of them.
  assert.equal(await title('---\ntoc_depth: 2\n---\n\n## 0.2.0\n\nFixed.\n\n## 0.1.0\n\nFirst.', 'docs/release-notes.md'), 'Release notes');
  assert.equal(await title('Text first.', 'docs/guides/index.md'), 'Guides');
  assert.equal(await title('Text first.', 'project/README.md'), 'Project');
});

test('markdown: MyST {include} targets are reported, with whether the page has text of its own', async () => {
  const only = await parse(['# Changelog', '', `${fence}{include} ../CHANGES.md`, '', fence].join('\n'));
  assert.deepEqual([only.title, only.includes, only.hasOwnText], ['Changelog', ['../CHANGES.md'], false]);
  const mixed = await parse(['# Guide', '', 'Intro text.', '', ':::{include} parts/setup.md', ':::'].join('\n'));
  assert.deepEqual([mixed.includes, mixed.hasOwnText], [['parts/setup.md'], true]);
  assert.equal((await parse('# Plain\n\nNo includes.\n')).includes, undefined);
});
