// Per-command help: every command's --help is its own (usage, every option with what it does, an
// example), rendered from the one table of command specs that the commands also parse with, so a
// command cannot take an option its help leaves out.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMAND_SPECS, GLOBAL_OPTIONS } from '../src/cli/command-specs.ts';
import { main } from '../src/cli/main.ts';
import { REPO_ROOT, runCli } from './helpers.ts';

const words = (name: string) => name.split(' ');
/** A value that passes option parsing (the commands check ranges and forms only after it). */
const dummy = (type: 'string' | 'boolean') => (type === 'string' ? ['1'] : []);

describe('per-command help', () => {
  it('every command and subcommand has its own --help: exit 0, its name, usage, every option, an example', async () => {
    const global = (await runCli(['--help'])).stdout;
    assert.ok(COMMAND_SPECS.length >= 20, `${COMMAND_SPECS.length} commands in the table`);
    for (const spec of COMMAND_SPECS) {
      const help = await runCli([...words(spec.name), '--help']);
      assert.equal(help.status, 0, `${spec.name}: ${help.stderr}`);
      assert.equal(help.stderr, '', spec.name);
      assert.notEqual(help.stdout, global, `${spec.name} --help prints the global help`);
      assert.ok(help.stdout.startsWith(`dossier ${spec.name} — `), `${spec.name}: ${help.stdout.slice(0, 80)}`);
      assert.match(help.stdout, new RegExp(`^Usage:\\n {2}dossier ${spec.name}`, 'm'), spec.name);
      assert.match(help.stdout, /^Examples:\n {2}dossier /m, spec.name);
      for (const option of [...spec.options, ...GLOBAL_OPTIONS]) {
        const line = help.stdout.split('\n').find((l) => l.includes(`--${option.name}${option.value ? ` ${option.value}` : ''}`));
        assert.ok(line, `${spec.name} --help does not list --${option.name}`);
      }
      for (const option of spec.options.filter((o) => o.default))
        assert.match(
          help.stdout.replace(/\s+/g, ' '),
          new RegExp(`\\(default: ${escape(option.default!)}\\)`),
          `${spec.name} --${option.name}`,
        );
      assert.deepEqual((await runCli(['help', ...words(spec.name)])).stdout, help.stdout, `dossier help ${spec.name}`);
    }
  });

  it('every option a command parses is one its help lists: the table is what the command parses with', async () => {
    for (const spec of COMMAND_SPECS) {
      // Every listed option is accepted (the parser stops at the first it does not know)…
      const listed = [...spec.options, ...GLOBAL_OPTIONS.filter((o) => o.name !== 'help')].flatMap((o) => [
        `--${o.name}`,
        ...dummy(o.type),
      ]);
      const run = await runCli([...words(spec.name), ...listed, '--not-in-the-table']);
      assert.equal(run.status, 2, `${spec.name}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^dossier: unknown option --not-in-the-table for "dossier ${spec.name}"`), spec.name);
      assert.equal(run.stderr.trim().split('\n').length, 1, spec.name);
      // …and one that another command takes but this one does not list is refused, naming it.
      const foreign = COMMAND_SPECS.flatMap((s) => s.options).find(
        (o) => o.type === 'boolean' && !spec.options.some((own) => own.name === o.name),
      )!;
      const refused = await runCli([...words(spec.name), `--${foreign.name}`]);
      assert.equal(refused.status, 2, `${spec.name} --${foreign.name}`);
      assert.match(refused.stderr, new RegExp(`unknown option --${foreign.name} for "dossier ${spec.name}"`));
    }
  });

  it('every option the command code reads is in the table (a read of an unlisted option would never see a value)', () => {
    const listed = new Set([...COMMAND_SPECS.flatMap((s) => s.options), ...GLOBAL_OPTIONS].map((o) => o.name));
    const dir = join(REPO_ROOT, 'src', 'cli', 'commands');
    const read = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const code = readFileSync(join(dir, file), 'utf8');
      for (const [, name] of code.matchAll(/(?:string|int|number|list|json)Option\(values, '([a-z-]+)'/g)) read.add(name);
      for (const match of code.matchAll(/values(?:\.([a-z]+)|\['([a-z-]+)'\])/g)) read.add(match[1] ?? match[2]);
    }
    assert.ok(read.size >= 30, `only ${read.size} option reads found`);
    assert.deepEqual([...read].filter((name) => !listed.has(name)).sort(), []);
  });

  it('the global help lists every command and the options for every command, and keeps its contract lines', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: dossier <command> \[options\]$/m);
    assert.match(help.stdout, /^Options for every command:$/m);
    for (const spec of COMMAND_SPECS) assert.match(help.stdout, new RegExp(`^ {2}${spec.name}\\b`, 'm'), spec.name);
    for (const option of GLOBAL_OPTIONS) assert.ok(help.stdout.includes(`--${option.name}`), option.name);
    assert.match(help.stdout, /--version/);
    for (const args of [[], ['-h'], ['help']]) assert.equal((await runCli(args)).stdout, help.stdout, args.join(' '));
  });

  it('a group lists its subcommands; a group of one is that command', async () => {
    const group = await runCli(['eval', '--help']);
    assert.equal(group.status, 0);
    for (const spec of COMMAND_SPECS.filter((s) => s.name.startsWith('eval ')))
      assert.match(group.stdout, new RegExp(`^ {2}${spec.name}\\b`, 'm'));
    assert.equal((await runCli(['users', '--help'])).stdout, (await runCli(['users', 'create', '--help'])).stdout);
  });

  it('--help --json prints the spec: usage, options with help and defaults, examples', async () => {
    const ask = await runCli(['ask', '--help', '--json']);
    assert.equal(ask.status, 0);
    assert.equal(ask.json.name, 'ask');
    assert.match(ask.json.usage, /^dossier ask <question> \[--mode rag\|research\]/);
    assert.deepEqual(
      ask.json.options.map((o: { name: string }) => o.name),
      COMMAND_SPECS.find((s) => s.name === 'ask')!.options.map((o) => o.name),
    );
    assert.ok(ask.json.options.every((o: { help: string }) => o.help.length > 0));
    assert.ok(ask.json.examples.length >= 1);
    const global = await runCli(['--help', '--json']);
    assert.equal(global.json.commands.length, COMMAND_SPECS.length);
    assert.ok(global.json.globalOptions.some((o: { name: string }) => o.name === 'db'));
  });

  it('an unknown command with --help is a one-line usage error naming it', async () => {
    const run = await runCli(['frobnicate', '--help']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^dossier: unknown command "frobnicate" \(commands: ingest, /);
    assert.equal(run.stderr.trim().split('\n').length, 1);
  });

  it('help is bold on a terminal and plain under NO_COLOR', async () => {
    const render = async (env: Record<string, string | undefined>) => {
      let stdout = '';
      const status = await main(['ask', '--help'], {
        stdout: { write: (chunk: string) => (stdout += chunk), isTTY: true },
        stderr: { write: () => true },
        env,
      });
      assert.equal(status, 0);
      return stdout;
    };
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a colour code
    const escapes = /\u001b\[/;
    assert.match(await render({ TERM: 'xterm' }), escapes);
    assert.doesNotMatch(await render({ TERM: 'xterm', NO_COLOR: '1' }), escapes);
  });
});

function escape(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
