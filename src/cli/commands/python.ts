import { readFile } from 'node:fs/promises';
import { PYTHON_DEFAULTS, PYTHON_LIMITS, PythonSandbox } from '../../research/python/index.ts';
import { intOption, parse } from '../args.ts';
import { UsageError, type CliIo, type CommandContext } from '../io.ts';

async function readAll(stream: NonNullable<CliIo['stdin']>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** `dossier python <file|-> [--timeout-ms N] [--memory-mb N]`: runs the code in the sandbox research mode uses. */
export async function python(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'python', {
    min: 1,
    max: 1,
    what: 'file',
    missing: 'python needs a file to run, or - for stdin',
  });
  const timeoutMs = intOption(values, 'timeout-ms', PYTHON_DEFAULTS.timeoutMs, ...PYTHON_LIMITS.timeoutMs);
  const memoryMb = intOption(values, 'memory-mb', PYTHON_DEFAULTS.memoryMb, ...PYTHON_LIMITS.memoryMb);
  const [file] = positionals;
  let code: string;
  if (file === '-') code = await readAll(context.io.stdin ?? process.stdin);
  else {
    try {
      code = await readFile(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message.split('\n')[0];
      throw new UsageError(`cannot read "${file}": ${reason}`);
    }
  }
  const sandbox = new PythonSandbox();
  try {
    const result = await sandbox.runPython(code, { timeoutMs, memoryMb, signal: context.io.signal });
    if (context.json) context.printJson(result);
    else {
      if (result.stdout) context.io.stdout.write(result.stdout);
      if (result.stderr) context.io.stderr.write(result.stderr);
      if (result.error) context.io.stderr.write(`${context.err.red(`dossier python: ${result.error}`)}\n`);
    }
    return result.error === null ? 0 : 1;
  } finally {
    await sandbox.close();
  }
}
