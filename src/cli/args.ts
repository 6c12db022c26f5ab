import { parseArgs, type ParseArgsConfig } from 'node:util';
import { commandSpec, GLOBAL_OPTIONS, type OptionSpec } from './command-specs.ts';
import { UsageError } from './io.ts';

export type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/** node:util's option config for some option specs. */
function parseConfig(specs: readonly OptionSpec[]): ParseOptions {
  return Object.fromEntries(
    specs.map((o) => [o.name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]),
  ) as ParseOptions;
}

/** Options every command takes (command-specs.ts, GLOBAL_OPTIONS). */
export const COMMON_OPTIONS: ParseOptions = parseConfig(GLOBAL_OPTIONS);

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
}

/**
 * Strict parsing: unknown options and, unless `positionals` allows them, extra arguments are usage
 * errors. Negative numbers are taken as values (`--k -1` reaches the range check, not "unknown option -1").
 */
export function parse(
  argv: readonly string[],
  command: string,
  positionals: { min?: number; max?: number; what?: string; missing?: string } = {},
): Parsed {
  // The command's options are its spec's: what its help lists is exactly what it takes.
  const options = { ...COMMON_OPTIONS, ...parseConfig(commandSpec(command).options) };
  const args = [...argv];
  for (let i = 0; i < args.length - 1; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : undefined;
    if (name && options[name]?.type === 'string' && /^-\d/.test(args[i + 1])) {
      args.splice(i, 2, `--${name}=${args[i + 1]}`);
    }
  }
  let parsed: Parsed;
  try {
    const result = parseArgs({ args, options, allowPositionals: true, strict: true });
    parsed = { values: result.values as Values, positionals: result.positionals };
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    throw new UsageError(
      unknown
        ? `unknown option ${unknown} for "dossier ${command}" (dossier ${command} --help lists its options)`
        : `${message.replace(/\.$/, '')} (dossier ${command} --help)`,
    );
  }
  const max = positionals.max ?? 0;
  if (parsed.positionals.length > max) {
    const extra = parsed.positionals
      .slice(max)
      .map((p) => `"${p}"`)
      .join(' ');
    throw new UsageError(
      max === 0
        ? `unexpected argument ${extra}: this command takes none`
        : `unexpected argument ${extra}: at most ${max} ${positionals.what ?? 'arguments'}`,
    );
  }
  if (parsed.positionals.length < (positionals.min ?? 0))
    throw new UsageError(positionals.missing ?? `missing ${positionals.what ?? 'argument'}`);
  return parsed;
}

/** A number option in [min, max]: a usage error naming the option and the value otherwise. */
function numeric(values: Values, name: string, min: number, max: number, integer: boolean): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const valid =
    typeof raw === 'string' &&
    raw.trim() !== '' &&
    (integer ? Number.isInteger(value) : Number.isFinite(value)) &&
    value >= min &&
    value <= max;
  if (!valid) throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function intOption(values: Values, name: string, fallback: number, min: number, max: number): number {
  return numeric(values, name, min, max, true) ?? fallback;
}

export function numberOption(values: Values, name: string, min: number, max: number): number | undefined {
  return numeric(values, name, min, max, false);
}

export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function listOption(values: Values, name: string): string[] | undefined {
  const value = values[name];
  return Array.isArray(value) && value.length ? value : undefined;
}

export function jsonOption(values: Values, name: string): Record<string, unknown> | undefined {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--${name} is not valid JSON: ${raw}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--${name} must be a JSON object, got ${raw}`);
  return value as Record<string, unknown>;
}

/** `--metadata k=v` (repeatable): numbers and true/false become JSON values, the rest strings. */
export function metadataOption(values: Values): Record<string, unknown> | undefined {
  const pairs = listOption(values, 'metadata');
  if (!pairs) return undefined;
  const metadata: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = equals > 0 ? pair.slice(0, equals).trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) throw new UsageError(`--metadata must be key=value with a plain key, got "${pair}"`);
    const raw = pair.slice(equals + 1);
    metadata[key] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  return metadata;
}
