import { COMMAND_SPECS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './command-specs.ts';
import type { Colors } from './io.ts';

/** Help text is wrapped to this width; the global help's descriptions start at this column. */
const WIDTH = 108;
const COLUMN = 45;

/** Words of `text` in lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** `left` then `text` from column `column`, wrapped; on its own line first when `left` reaches the column. */
function columns(left: string, text: string, column: number): string[] {
  const body = wrap(text, WIDTH - column);
  const pad = ' '.repeat(column);
  if (left.length + 2 > column) return [left, ...body.map((line) => pad + line)];
  return body.length ? [left.padEnd(column) + body[0], ...body.slice(1).map((line) => pad + line)] : [left];
}

/** `-m, --mode rag|research`, `--sync`, `--metadata k=v…`. */
export function optionFlags(option: OptionSpec): string {
  const long = `--${option.name}${option.value ? ` ${option.value}` : ''}${option.multiple ? '…' : ''}`;
  return option.short ? `-${option.short}, ${long}` : long;
}

/** What an option's help line says: what it does, then its default. */
function optionText(option: OptionSpec): string {
  return option.default ? `${option.help} (default: ${option.default})` : option.help;
}

/** The usage line of a command: its arguments, then every option in brackets. */
export function usageLine(spec: CommandSpec): string {
  const options = spec.options.map((o) => {
    const flag = `--${o.name}${o.value ? ` ${o.value}` : ''}`;
    return `${o.required ? flag : `[${flag}]`}${o.multiple ? '…' : ''}`;
  });
  return [spec.name, spec.args, ...options].filter(Boolean).join(' ');
}

/** A usage line broken before an option when it passes the width, continued indented. */
function usageLines(usage: string, indent: string): string[] {
  const parts = usage.split(/ (?=\[|--)/);
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    if (line && indent.length + line.length + 1 + part.length > WIDTH) {
      lines.push(line);
      line = `    ${part}`;
    } else line = line ? `${line} ${part}` : part;
  }
  lines.push(line);
  return lines.map((l) => indent + l);
}

const optionRows = (options: readonly OptionSpec[]) => options.flatMap((o) => columns(`  ${optionFlags(o)}`, optionText(o), 32));

/** `dossier --help`: every command with its usage and what it does, then the options every command takes. */
export function globalHelp(colors: Colors): string {
  const lines = [
    'dossier — answers you can check',
    '',
    'Usage: dossier <command> [options]',
    '       dossier <command> --help       that command’s usage, options and examples (also: dossier help <command>)',
    '',
    colors.bold('Commands:'),
  ];
  for (const spec of COMMAND_SPECS) {
    const usage = usageLines(usageLine(spec), '  ');
    lines.push(...usage.slice(0, -1), ...columns(usage.at(-1)!, spec.summary, COLUMN));
    for (const form of spec.forms ?? []) lines.push(...columns(`  ${form.usage}`, form.summary, COLUMN));
  }
  lines.push('', colors.bold('Options for every command:'), ...optionRows(GLOBAL_OPTIONS));
  lines.push(...columns('  --version', 'the version', 32), '');
  return lines.join('\n');
}

/** The commands under a group name (`eval` → eval beir, eval docs, …), for `dossier eval --help`. */
export function groupSpecs(group: string): CommandSpec[] {
  return COMMAND_SPECS.filter((spec) => spec.name.startsWith(`${group} `));
}

/** `dossier <command> --help`: what it does, its usage, every option with its default, the common options, examples. */
export function commandHelp(spec: CommandSpec, colors: Colors): string {
  const [title, ...rest] = wrap(`dossier ${spec.name} — ${spec.summary}`, WIDTH);
  const lines = [title, ...rest.map((line) => `  ${line}`), '', colors.bold('Usage:'), ...usageLines(`dossier ${usageLine(spec)}`, '  ')];
  for (const form of spec.forms ?? []) lines.push(...columns(`  dossier ${form.usage}`, form.summary, COLUMN));
  if (spec.details) lines.push('', ...wrap(spec.details, WIDTH));
  lines.push('', colors.bold('Options:'), ...(spec.options.length ? optionRows(spec.options) : ['  none besides those below']));
  lines.push('', colors.bold('Options for every command:'), ...optionRows(GLOBAL_OPTIONS));
  lines.push('', colors.bold('Examples:'), ...spec.examples.map((example) => `  ${example}`), '');
  return lines.join('\n');
}

/** `dossier eval --help`: the group's commands, each with its usage and what it does. */
export function groupHelp(group: string, colors: Colors): string {
  const lines = [`dossier ${group} — ${groupSpecs(group).length} commands`, '', colors.bold('Commands:')];
  for (const spec of groupSpecs(group)) {
    const usage = usageLines(usageLine(spec), '  ');
    lines.push(...usage.slice(0, -1), ...columns(usage.at(-1)!, spec.summary, COLUMN));
  }
  lines.push('', `Each has its own help: dossier ${groupSpecs(group)[0].name} --help`, '');
  return lines.join('\n');
}

/**
 * The help asked for by `argv` (the words after `dossier`, `help` and the help flags left out): a
 * command's, a group's, or undefined when the words name neither.
 */
export function helpFor(words: readonly string[], colors: Colors): { text: string; json: unknown } | undefined {
  const [first, second] = words;
  const spec = COMMAND_SPECS.find((s) => s.name === `${first} ${second}`) ?? COMMAND_SPECS.find((s) => s.name === first);
  if (spec)
    return { text: commandHelp(spec, colors), json: { ...spec, usage: `dossier ${usageLine(spec)}`, globalOptions: GLOBAL_OPTIONS } };
  const group = groupSpecs(first ?? '');
  // A group of one (users create) is that command.
  if (group.length === 1) return helpFor([first, group[0].name.split(' ')[1]], colors);
  if (group.length) return { text: groupHelp(first, colors), json: { group: first, commands: group } };
  return undefined;
}

/** The whole table as JSON (`dossier --help --json`). */
export function globalHelpJson(): unknown {
  return {
    commands: COMMAND_SPECS.map((spec) => ({ ...spec, usage: `dossier ${usageLine(spec)}` })),
    globalOptions: GLOBAL_OPTIONS,
  };
}
