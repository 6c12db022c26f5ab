import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { resolveModel } from '../src/providers/index.ts';
import { tempDir } from './helpers.ts';

/** A command reference whose options and environment variables are headings, as option references are written. */
const REFERENCE = `# Quill reference

## Command line options

Quill takes the following options.

#### \`--wrap\`

Break every paragraph at the column limit before writing it back.

#### \`-s\`, \`--spellcheck\`

Mark each word the dictionary does not know with a red underline.

#### \`--strict\`

Stop at the first word the dictionary lacks. Quill will exit with:

- code 0 when every word was found;
- code 3 when a word was missing.

#### \`--dry-run\`

Print what would change and leave the files on disk alone.

## Environment variables

Quill reads two settings from environment variables.

### \`QUILL_DICTIONARY\`

The folder with the word lists Quill checks spelling against.

### \`QUILL_THEME\`

The colour scheme of the preview window.
`;

/** An API page with two classes, each with its own argument list. */
const API = `# Quill API

## Notebook

A \`Notebook\` holds pages in the order they were added.

\`\`\`python
book = Notebook(title="Trips", pages=[])
\`\`\`

The following arguments are supported:

* \`title\` - The name shown on the cover.
* \`pages\` - The pages to start with. Defaults to an empty list.
* \`locked\` - Refuse edits once set. Defaults to \`False\`.
* \`margin\` - The Margin every page of the notebook gets. Defaults to a Margin of 10 mm width.
* \`gutter\` - Extra margin width on the inner side of each page, in the unit of the Margin.

## Margin

A \`Margin\` is the blank border around a page.

\`\`\`python
margin = Margin(width=12, unit="mm")
\`\`\`

The following arguments are supported:

* \`width\` - How wide the border is.
* \`unit\` - The unit of the width. Defaults to \`"mm"\`.
`;

/** A reStructuredText page with a definition list, one of whose entries runs to two sentences. */
const HOOKS = `Hooks
=====

Writing hooks
-------------

A hook is a function Quill calls while it writes a file.

Inside a hook, you have access to three special values:

\`page\`
    The page being written, as a Page object.

\`words\`
    The words of the page, in reading order.  Changing this list changes what is written.

\`reader\`
    The reader the page is written for, or None when it is a draft.

Hooks run in the order they were registered.
`;

/** Sphinx object descriptions: options and environment variables described with \`.. option::\` and \`.. envvar::\`. */
const SYNC = `Syncing
=======

Sync options
------------

.. option:: --mirror

   Delete files at the target that the source no longer has.

.. option:: --since DATE

   Copy only the files changed after DATE.

.. envvar:: QUILL_SYNC_TOKEN

   The secret the sync server checks before it accepts an upload.
`;

/** The offline reader over reference pages: real ingest, real agent loop, the offline model. */
describe('offline reader over reference pages', () => {
  let temp: ReturnType<typeof tempDir>;
  let docs: Dossier;
  before(async () => {
    temp = tempDir();
    writeFileSync(join(temp.dir, 'reference.md'), REFERENCE);
    writeFileSync(join(temp.dir, 'api.md'), API);
    writeFileSync(join(temp.dir, 'hooks.rst'), HOOKS);
    writeFileSync(join(temp.dir, 'sync.rst'), SYNC);
    docs = await createDossier({ db: join(temp.dir, 'docs.db') });
    await docs.ingest([join(temp.dir, 'reference.md'), join(temp.dir, 'api.md'), join(temp.dir, 'hooks.rst'), join(temp.dir, 'sync.rst')]);
  });
  after(async () => {
    await docs.close();
    temp.cleanup();
  });
  const ask = async (question: string) => (await runAgent({ knowledge: docs, question, model: await resolveModel('offline') })).answer;

  it('answers "which flag does X" with the heading that names the flag, then what its section says, cited', async () => {
    const lines = (await ask('Which Quill flag marks words the dictionary does not know?')).split('\n');
    assert.match(lines[0], /^-s, --spellcheck \[E\d+\]$/, lines.join('\n'));
    assert.match(lines[1], /^Mark each word the dictionary does not know with a red underline\. \[E\d+\]$/);
  });

  it('reads an option described the Sphinx way (a paragraph naming it, then its description) as a heading', async () => {
    const lines = (await ask('Which Quill sync option deletes files at the target that the source no longer has?')).split('\n');
    assert.match(lines[0], /^--mirror \[E\d+\]$/, lines.join('\n'));
    assert.match(lines[1], /^Delete files at the target that the source no longer has\. \[E\d+\]$/);
    const variable = (await ask('Which environment variable holds the secret the Quill sync server checks before an upload?')).split('\n');
    assert.match(variable[0], /^QUILL_SYNC_TOKEN \[E\d+\]$/, variable.join('\n'));
  });

  it("shows the list a flag's opening introduces, item by item, after the flag's name", async () => {
    const lines = (await ask('Which Quill flag stops at the first missing word?')).split('\n');
    assert.match(lines[0], /^--strict \[E\d+\]$/, lines.join('\n'));
    assert.match(lines[1], /^Stop at the first word the dictionary lacks\. Quill will exit with: \[E\d+\]$/);
    assert.match(lines[2], /^- code 0 when every word was found; \[E\d+\]$/);
    assert.match(lines[3], /^- code 3 when a word was missing\. \[E\d+\]$/);
  });

  it('answers "what environment variables" with the names heading the sections of that part of the page, each described', async () => {
    const answer = await ask('What environment variables does Quill read?');
    assert.match(answer, /^- QUILL_DICTIONARY: The folder with the word lists Quill checks spelling against\. \[E\d+\]$/m, answer);
    assert.match(answer, /^- QUILL_THEME: The colour scheme of the preview window\. \[E\d+\]$/m, answer);
    assert.doesNotMatch(answer, /--wrap|--dry-run/, 'no option of another part of the page');
  });

  it("answers for a class's arguments with that class's own list, each with its description, however the question is worded", async () => {
    for (const question of ['What arguments does Margin accept?', 'List the Margin arguments', 'Which parameters does Margin take?']) {
      const answer = await ask(question);
      assert.match(answer, /^- width - How wide the border is\. \[E\d+\]$/m, `${question}\n${answer}`);
      assert.match(answer, /^- unit - The unit of the width\. Defaults to "mm"\. \[E\d+\]$/m, `${question}\n${answer}`);
      assert.doesNotMatch(answer, /title|pages|locked/, `no argument of another class: ${question}\n${answer}`);
    }
    const other = await ask('What arguments does Notebook accept?');
    assert.match(other, /^- title - The name shown on the cover\. \[E\d+\]$/m, other);
    assert.match(other, /^- locked - Refuse edits once set\. Defaults to False\. \[E\d+\]$/m, other);
    assert.doesNotMatch(other, /How wide the border|^- unit/m, other);
  });

  it("lists every entry of a definition list, an entry's second sentence not ending the list", async () => {
    const answer = await ask('Which special values can a Quill hook access?');
    for (const entry of [
      /^page: The page being written/m,
      /^words: The words of the page/m,
      /^reader: The reader the page is written for/m,
    ])
      assert.match(answer, entry, answer);
    assert.doesNotMatch(answer, /^Hooks run in the order/m, 'the paragraph after the list is no entry of it');
  });
});
