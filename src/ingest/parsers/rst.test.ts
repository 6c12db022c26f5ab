/** The reStructuredText parser on made-up documents and on the real Jinja documentation (docs-dev). */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chunkBlocks } from '../chunk.ts';
import type { Block, ParsedDocument } from '../types.ts';
import { parseDocument, parserFor } from './index.ts';
import { DOCS_MIXED } from './test-data.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const parse = (text: string, path = 'doc.rst') => parseDocument({ path, bytes: encode(text) });
const texts = (doc: ParsedDocument) => doc.blocks.filter((b) => b.type === 'text').map((b) => b.text);
/** Code blocks as [language, code]; '' when the language is unknown. */
const codes = (doc: ParsedDocument) =>
  doc.blocks.filter((b): b is Extract<Block, { type: 'code' }> => b.type === 'code').map((b) => [b.language ?? '', b.text] as const);
const headings = (doc: ParsedDocument) =>
  doc.blocks.filter((b): b is Extract<Block, { type: 'heading' }> => b.type === 'heading').map((h) => [h.level, h.text] as const);

/** The heading path of the chunk that contains `phrase`. */
function headingPathOf(doc: ParsedDocument, phrase: string): string[] | undefined {
  return chunkBlocks(doc.blocks, { maxTokens: 64 }).chunks.find((chunk) => chunk.text.includes(phrase))?.headingPath;
}

const JINJA = join(DOCS_MIXED, '..', 'docs-dev', 'jinja');
const jinja = { skip: existsSync(JINJA) ? false : `Jinja docs not found at ${JINJA}` };
const readJinja = (name: string) => parseDocument({ path: join(JINJA, name), bytes: readFileSync(join(JINJA, name)) });

// Left-over markup a reader of the rendered page never sees.
const ADORNMENT_LINE = /^([=\-~^"'`#*+:.])\1{3,}\s*$/m;
const DIRECTIVE = /^\s*\.\. [\w:-]+::/m;
const ROLE = /:[\w:+.-]+:`/;

test('rst: registered for .rst, .rest and text/x-rst', () => {
  assert.equal(parserFor('docs/index.rst')?.name, 'rst');
  assert.equal(parserFor('NOTES.REST')?.name, 'rst');
  assert.equal(parserFor('upload', 'text/x-rst; charset=utf-8')?.name, 'rst');
});

test('rst: section titles by adornment style (over+under and under-only) give the title and heading paths', async () => {
  const doc = await parse(
    [
      '#########',
      ' The Book',
      '#########',
      '',
      'Opening words.',
      '',
      'Chapter One',
      '***********',
      '',
      'First chapter text.',
      '',
      'A Section',
      '=========',
      '',
      'Section text.',
      '',
      'Deeper',
      '------',
      '',
      'Deep text.',
      '',
      'Chapter Two',
      '***********',
      '',
      'Second chapter text.',
      '',
      'Another Section',
      '===============',
      '',
      'More section text.',
      '',
    ].join('\n'),
  );
  assert.equal(doc.title, 'The Book');
  assert.equal(doc.mediaType, 'text/x-rst');
  assert.deepEqual(headings(doc), [
    [1, 'The Book'],
    [2, 'Chapter One'],
    [3, 'A Section'],
    [4, 'Deeper'],
    [2, 'Chapter Two'],
    [3, 'Another Section'],
  ]);
  assert.deepEqual(headingPathOf(doc, 'Deep text.'), ['The Book', 'Chapter One', 'A Section', 'Deeper']);
  assert.deepEqual(headingPathOf(doc, 'More section text.'), ['The Book', 'Chapter Two', 'Another Section']);
  assert.ok(!doc.blocks.some((b) => ADORNMENT_LINE.test(b.text)), 'no adornment lines in the text');
});

test('rst: directives and roles are reduced to their text', async () => {
  const doc = await parse(
    [
      'Guide',
      '=====',
      '',
      'Call :func:`render` on a :class:`~jinja2.Template`; see :ref:`the loaders <loaders>` and :ref:`low-level`.',
      '',
      'Use ``env.get_template()`` with *care* and **always** `Environment`_ or :meth:`!Environment.overlay`.',
      '',
      '.. note::',
      '   Templates are cached.',
      '',
      '   Cached by name.',
      '',
      '.. warning:: Untrusted input needs the sandbox.',
      '',
      '.. admonition:: Notes on Autoescaping',
      '',
      '   Configure it explicitly.',
      '',
      '.. versionadded:: 2.9',
      '',
      '.. versionchanged:: 3.0',
      '   Added ``pgettext``.',
      '',
      '.. _low-level:',
      '',
      'Low Level API',
      '-------------',
      '',
      'Internals.',
      '',
    ].join('\n'),
  );
  const all = texts(doc);
  assert.ok(all.includes('Call render on a Template; see the loaders and Low Level API.'), all[0]);
  assert.ok(all.includes('Use env.get_template() with care and always Environment or Environment.overlay.'));
  assert.ok(all.includes('Note: Templates are cached.'));
  assert.ok(all.includes('Cached by name.'));
  assert.ok(all.includes('Warning: Untrusted input needs the sandbox.'));
  assert.ok(all.includes('Notes on Autoescaping: Configure it explicitly.'));
  assert.ok(all.includes('Added in version 2.9.'));
  assert.ok(all.includes('Changed in version 3.0: Added pgettext.'));
  for (const text of all) {
    assert.doesNotMatch(text, DIRECTIVE);
    assert.doesNotMatch(text, ROLE);
    assert.doesNotMatch(text, /``|\*\*|`_/);
  }
});

test('rst: code blocks stay verbatim; toctrees, includes, substitutions, comments and targets are dropped', async () => {
  const doc = await parse(
    [
      ':orphan:',
      ':tocdepth: 2',
      ':Author: Ada',
      '',
      'Usage',
      '=====',
      '',
      '.. |project| replace:: **Dossier**',
      '',
      'Install |project| like this::',
      '',
      '    $ pip install dossier',
      '    $ dossier --help',
      '',
      '.. code-block:: python',
      '   :caption: example.py',
      '',
      '   env = Environment()',
      '   if env:',
      '       print("ok")',
      '',
      '.. sourcecode:: html+jinja',
      '',
      '   {{ name|e }}',
      '',
      '.. code:: bash',
      '',
      '   echo done',
      '',
      '.. toctree::',
      '   :maxdepth: 2',
      '',
      '   intro',
      '   api',
      '',
      '.. include:: ../CHANGES.rst',
      '',
      '.. This is a comment',
      '   that spans two lines.',
      '',
      '.. _install-target:',
      '.. _Docs: https://example.org/docs',
      '',
      'See the `Docs`_ and `PyPI <https://pypi.org>`_.',
      '',
      '.. autoclass:: Environment([options])',
      '   :members: from_string, get_template,',
      '             select_template',
      '',
      '   .. attribute:: shared',
      '',
      '      True for shared environments.',
      '',
    ].join('\n'),
  );
  assert.equal(doc.title, 'Usage');
  assert.deepEqual(doc.metadata, { orphan: true, tocdepth: 2, author: 'Ada' });
  const all = texts(doc);
  assert.ok(all.includes('Install Dossier like this:'));
  assert.ok(all.includes('example.py'));
  assert.deepEqual(codes(doc), [
    ['', '$ pip install dossier\n$ dossier --help'],
    ['python', 'env = Environment()\nif env:\n    print("ok")'],
    ['html+jinja', '{{ name|e }}'],
    ['bash', 'echo done'],
  ]);
  assert.ok(all.includes('See the Docs and PyPI.'));
  assert.ok(all.includes('class Environment([options])'));
  assert.ok(all.includes('True for shared environments.'));
  const joined = [...all, ...codes(doc).map(([, code]) => code)].join('\n');
  for (const gone of [
    'maxdepth',
    'intro\napi',
    'CHANGES',
    'comment',
    'install-target',
    'https://example.org',
    'members',
    'replace::',
    ':orphan:',
  ]) {
    assert.ok(!joined.includes(gone), `${gone} is dropped`);
  }
});

test('rst: lists, definition lists, line blocks, field lists and tables', async () => {
  const doc = await parse(
    [
      'Lists',
      '=====',
      '',
      'Some text first.',
      '',
      '- first item',
      '  continues here',
      '- second item',
      '',
      '  - nested item',
      '',
      '#. one',
      '#. two',
      '',
      '3) three',
      '4) four',
      '',
      '``==``',
      '    Compares two objects for equality.',
      '',
      '| 1 Main Street',
      '| Springfield',
      '',
      ':param name: the template name',
      ':returns: a template',
      '',
      '+-------+-------+',
      '| name  | year  |',
      '+=======+=======+',
      '| Ada   | 1843  |',
      '+-------+-------+',
      '',
      '=====  =====',
      'city   pop',
      '=====  =====',
      'Oslo   700',
      'Bergen 290',
      '=====  =====',
      '',
      '.. list-table:: Sizes',
      '   :header-rows: 1',
      '',
      '   * - size',
      '     - weight',
      '   * - small',
      '     - 2 kg',
      '',
    ].join('\n'),
  );
  const all = texts(doc);
  assert.ok(all.includes('- first item continues here\n- second item\n  - nested item'), all.join('\n---\n'));
  assert.ok(all.includes('1. one\n2. two'));
  assert.ok(all.includes('3. three\n4. four'));
  assert.ok(all.includes('==: Compares two objects for equality.'));
  assert.ok(all.includes('1 Main Street\nSpringfield'));
  assert.ok(all.includes('param name: the template name\nreturns: a template'));
  assert.ok(all.includes('name: Ada; year: 1843'));
  assert.ok(all.includes('city: Oslo; pop: 700\ncity: Bergen; pop: 290'));
  assert.ok(all.includes('Sizes'));
  assert.ok(all.includes('size: small; weight: 2 kg'));
  assert.deepEqual(doc.metadata, {}, 'a field list after body text is text, not metadata');
});

test('rst: a file with nothing but an include names its target and has no text of its own', async () => {
  const doc = await parse('Changes\n=======\n\n.. include:: ../CHANGES.rst\n');
  assert.deepEqual([doc.title, doc.includes, doc.hasOwnText], ['Changes', ['../CHANGES.rst'], false]);
  const mixed = await parse(
    'Guide\n=====\n\nRead this.\n\n.. include:: parts/setup.rst\n\n.. literalinclude:: example.py\n   :language: python\n',
  );
  assert.deepEqual([mixed.includes, mixed.hasOwnText], [['parts/setup.rst', 'example.py'], true]);
  assert.equal((await parse('Plain\n=====\n\nNo includes here.\n')).includes, undefined);
});

test('rst: the Jinja documentation reads without markup left over', jinja, async () => {
  const files = readdirSync(JINJA).filter((name) => name.endsWith('.rst'));
  assert.ok(files.length >= 10);
  let parsed = 0;
  for (const name of files) {
    const doc: ParsedDocument = await readJinja(name);
    // changes.rst and license.rst are only a title and an include of a file outside the folder.
    if (doc.hasOwnText === false) {
      assert.ok(['changes.rst', 'license.rst'].includes(name) && doc.includes?.length, name);
      continue;
    }
    parsed++;
    for (const block of doc.blocks) {
      assert.doesNotMatch(block.text, ADORNMENT_LINE, `${name}: adornment line in ${JSON.stringify(block.text.slice(0, 80))}`);
      assert.doesNotMatch(block.text, DIRECTIVE, `${name}: directive in ${JSON.stringify(block.text.slice(0, 80))}`);
      assert.doesNotMatch(block.text, ROLE, `${name}: role in ${JSON.stringify(block.text.slice(0, 80))}`);
    }
  }
  assert.ok(parsed >= 10, `${parsed} files parsed`);
});

test('rst: Jinja titles, heading paths and code samples are right', jinja, async () => {
  const intro = await readJinja('intro.rst');
  assert.equal(intro.title, 'Introduction');
  assert.deepEqual(headings(intro), [
    [1, 'Introduction'],
    [2, 'Installation'],
    [3, 'Dependencies'],
    [3, 'Optional Dependencies'],
  ]);
  assert.deepEqual(headingPathOf(intro, 'MarkupSafe escapes untrusted input'), ['Introduction', 'Installation', 'Dependencies']);
  assert.deepEqual(
    codes(intro).find(([, code]) => code === '$ pip install Jinja2'),
    ['text', '$ pip install Jinja2'],
    'the code-block is its own block, with its language',
  );
  assert.ok(texts(intro).includes('Install the most recent Jinja version using pip:'));

  const api = await readJinja('api.rst');
  assert.equal(api.title, 'API');
  assert.deepEqual(headingPathOf(api, 'The simplest way to configure Jinja'), ['API', 'Basics']);
  assert.ok(texts(api).includes('The simplest way to configure Jinja to load templates for your application is to use PackageLoader.'));
  assert.ok(
    codes(api).some(
      ([, code]) =>
        code ===
        'from jinja2 import Environment, PackageLoader, select_autoescape\nenv = Environment(\n    loader=PackageLoader("yourapp"),\n    autoescape=select_autoescape()\n)',
    ),
    'the Basics sample is kept whole, indentation included',
  );
  assert.ok(texts(api).includes('The most common way to create an undefined object is by providing a name only:'), '"::" becomes ":"');
  assert.ok(codes(api).some(([, code]) => code === "return environment.undefined(name='some_name')"));
  assert.deepEqual(headingPathOf(api, 'unify linebreaks and surrounding whitespace'), ['API', 'Policies']);

  const templates = await readJinja('templates.rst');
  assert.equal(templates.title, 'Template Designer Documentation');
  assert.deepEqual(headingPathOf(templates, 'Loop over each item in a sequence.'), [
    'Template Designer Documentation',
    'List of Control Structures',
    'For',
  ]);
  assert.ok(
    texts(templates).some((text) => text.includes('Variable: loop.index; Description: The current iteration of the loop. (1 indexed)')),
    'grid table rows keep their header',
  );
  assert.ok(texts(templates).includes('==: Compares two objects for equality.'));
  assert.deepEqual(
    codes(templates).find(([, code]) => code === '{% for item in seq -%}\n    {{ item }}\n{%- endfor %}'),
    ['html+jinja', '{% for item in seq -%}\n    {{ item }}\n{%- endfor %}'],
    'a "::" literal block takes the language of `.. highlight::`',
  );
});

test('rst: literal blocks, doctest blocks and code directives are code blocks with their language', async () => {
  const doc = await parse(
    [
      'Title',
      '=====',
      '',
      'A literal block::',
      '',
      '    plain literal',
      '',
      '>>> 1 + 1',
      '2',
      '',
      '.. doctest::',
      '',
      '   >>> env.name',
      "   'x'",
      '',
      '.. highlight:: html+jinja',
      '',
      'Now literal blocks are templates::',
      '',
      '    {{ user.name }}',
      '',
      '.. code-block::',
      '',
      '   {% if user %}{% endif %}',
      '',
      '.. sourcecode:: ini',
      '',
      '   [tool]',
    ].join('\n'),
  );
  assert.deepEqual(codes(doc), [
    ['', 'plain literal'],
    ['pycon', '>>> 1 + 1\n2'],
    ['pycon', ">>> env.name\n'x'"],
    ['html+jinja', '{{ user.name }}'],
    ['html+jinja', '{% if user %}{% endif %}'],
    ['ini', '[tool]'],
  ]);
  assert.ok(texts(doc).includes('Now literal blocks are templates:'));
});

test('rst: the title is :title:, else a section title that opens the page, else the file name', async () => {
  assert.equal((await parse(':title: Given\n\nSection\n=======\n\nText.')).title, 'Given');
  assert.equal((await parse('.. _target:\n\n.. module:: jinja2\n\nOpening\n=======\n\nText.\n\nSub\n---\n\nText.')).title, 'Opening');
  assert.equal((await parse('Text before any section.\n\nSection\n=======\n\nText.', 'docs/native_types.rst')).title, 'Native types');
  assert.equal(
    (await parse('One\n===\n\nText.\n\nTwo\n===\n\nText.', 'docs/changes.rst')).title,
    'Changes',
    'two top-level sections: neither is the title',
  );
  assert.equal((await parse('Text only.', 'docs/api/index.rst')).title, 'Api');
});
