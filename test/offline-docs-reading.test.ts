import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { resolveModel } from '../src/providers/index.ts';
import { tempDir } from './helpers.ts';

const GUIDE = `# Gizmo guide

## Overview

Gizmo renders dashboards from plain files. It ships a command-line tool and a Python API.

\`\`\`python
import gizmo
gizmo.render("dash.yml")
\`\`\`

## Enabling the panel cache

The panel cache keeps rendered panels between runs, so a dashboard opens at once.

First, install the cache extra:

\`\`\`sh
pip install gizmo[cache]
\`\`\`

Then switch the cache on in \`gizmo.toml\`:

\`\`\`toml
[cache]
enabled = true
\`\`\`

## Logging

Gizmo writes its log to standard error by default.

\`\`\`python
gizmo.log_level("debug")
\`\`\`
`;

const LIMITS = `# Gizmo limits

## Panel limits

Each dashboard has limits on its panels.

| setting | default | maximum |
|---|---|---|
| panels per dashboard | 40 | 200 |
| refresh interval | 30 | None |
`;

/** The offline reader over small Markdown docs: real ingest, real agent loop, the offline model. */
describe('offline reader over documentation', () => {
  let temp: ReturnType<typeof tempDir>;
  let docs: Dossier;
  before(async () => {
    temp = tempDir();
    writeFileSync(join(temp.dir, 'gizmo.md'), GUIDE);
    writeFileSync(join(temp.dir, 'limits.md'), LIMITS);
    docs = await createDossier({ db: join(temp.dir, 'docs.db') });
    await docs.ingest([join(temp.dir, 'gizmo.md'), join(temp.dir, 'limits.md')]);
  });
  after(async () => {
    await docs.close();
    temp.cleanup();
  });
  const ask = async (question: string) => (await runAgent({ knowledge: docs, question, model: await resolveModel('offline') })).answer;

  it("answers a how-to with the procedure's steps in order, each with its own code block", async () => {
    const answer = await ask('How do I enable the panel cache in Gizmo?');
    const lines = answer.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const install = at(/^1\. First, install the cache extra\. \[E\d+\]$/);
    const switchOn = at(/^2\. Then switch the cache on in gizmo\.toml\. \[E\d+\]$/);
    assert.ok(install >= 0 && switchOn > install, answer);
    // each step's own block follows its sentence: the install command after step 1, the setting after step 2
    assert.ok(at(/^pip install gizmo\[cache\]$/) === install + 2 && at(/^enabled = true$/) > switchOn, answer);
    assert.ok(!answer.includes('gizmo.render') && !answer.includes('log_level'), 'no code block of another section');
  });

  it("never makes a table's lone cell the headline: a complete phrase leads", async () => {
    for (const question of ['What is the default refresh interval in Gizmo?', 'What is the maximum refresh interval of a Gizmo panel?']) {
      const headline = (await ask(question)).split('\n')[0];
      assert.doesNotMatch(headline, /^(?:None|30|200|40|setting|default|maximum) \[E\d+\]$/, question);
    }
  });
});
