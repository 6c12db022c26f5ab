import { configFromEnv } from '../../config/index.ts';
import { loadPolicy } from '../../config/policy.ts';
import { listOption, parse, stringOption } from '../args.ts';
import type { CommandContext } from '../io.ts';
import { openIndex } from './open.ts';

/**
 * `dossier mcp [--collection NAME]… [--model M] [--config FILE]`: an MCP server over stdio. stdout
 * carries only the protocol, so everything else (including failures) goes to stderr.
 */
export async function mcp(argv: string[], context: CommandContext): Promise<number> {
  const { values } = parse(argv, 'mcp');
  const policy = loadPolicy(stringOption(values, 'config') ?? configFromEnv(context.io.env).configFile);
  const dossier = await openIndex(values, context, 'read');
  try {
    // Named collections must exist (the error lists the ones that do); none named is all of them.
    const scope = await dossier.scope({ collections: listOption(values, 'collection') });
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import('../../mcp/server.ts'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const db = stringOption(values, 'db') ?? configFromEnv(context.io.env).db;
    const server = createMcpServer({
      dossier,
      scope,
      ask: { policy, model: stringOption(values, 'model'), runsDir: configFromEnv(context.io.env).runsDir ?? `${db}.runs` },
    });
    const transport = new StdioServerTransport();
    // Requests read but not yet answered: piped input (`… | dossier mcp`) ends before its answers are out.
    let pending = 0;
    let inputEnded = false;
    let answered = () => {};
    const closed = new Promise<void>((resolve) => {
      const finishInput = () => {
        inputEnded = true;
        if (pending === 0) resolve();
      };
      transport.onclose = () => resolve();
      // The client closing stdin is the normal end of a stdio session.
      process.stdin.once('end', finishInput);
      process.stdin.once('close', finishInput);
      context.io.signal?.addEventListener('abort', () => resolve(), { once: true });
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
      answered = () => {
        pending = Math.max(0, pending - 1);
        if (pending === 0 && inputEnded) resolve();
      };
    });
    await server.connect(transport);
    const receive = transport.onmessage;
    transport.onmessage = (message) => {
      if ('method' in message && 'id' in message) pending++;
      receive?.(message);
    };
    const send = transport.send.bind(transport);
    transport.send = async (message) => {
      await send(message);
      if (!('method' in message) && 'id' in message) answered();
    };
    context.io.stderr.write(
      `dossier mcp: serving ${scope.collections === '*' ? 'every collection' : scope.collections.join(', ')} over stdio\n`,
    );
    await closed;
    await server.close();
    return 0;
  } finally {
    await dossier.close();
  }
}
