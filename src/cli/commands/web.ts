import { configFromEnv } from '../../config/index.ts';
import { FETCH_DEFAULTS, fetchPage } from '../../research/web/fetch-page.ts';
import { webSearchProviderFromSettings } from '../../research/web/search-provider.ts';
import { intOption, parse } from '../args.ts';
import { UsageError, type CommandContext } from '../io.ts';

/** `dossier web search <query>` and `dossier web fetch <url>`: the same code the web_search and web_scrape tools run. */
export async function web(argv: string[], context: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'search') return search(rest, context);
  if (sub === 'fetch') return fetchCommand(rest, context);
  throw new UsageError(
    sub ? `unknown web command "${sub}" (web search <query> | web fetch <url>)` : 'web needs a subcommand: search <query> or fetch <url>',
  );
}

async function search(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'web search', { max: Infinity });
  const query = positionals.join(' ');
  if (!query.trim()) throw new UsageError('web search needs a query');
  const limit = intOption(values, 'limit', 5, 1, 50);
  const provider = webSearchProviderFromSettings(configFromEnv(context.io.env).web);
  const results = await provider.search(query, { limit, signal: context.io.signal });
  if (context.json) {
    context.printJson({ results });
    return 0;
  }
  const { out } = context;
  if (results.length === 0) context.print('no results');
  results.forEach((result, i) => {
    context.print(out.bold(`${i + 1}. ${result.title}`));
    context.print(`   ${out.dim(result.url)}`);
    if (result.snippet) context.print(`   ${result.snippet.slice(0, 240)}${result.snippet.length > 240 ? '…' : ''}`);
  });
  context.print(out.dim(`${results.length} results from ${provider.id}`));
  return 0;
}

async function fetchCommand(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'web fetch', { min: 1, max: 1, what: 'URL', missing: 'web fetch needs a URL' });
  const page = await fetchPage(positionals[0], {
    maxBytes: intOption(values, 'max-bytes', FETCH_DEFAULTS.maxBytes, 1, 100 * 1024 * 1024),
    timeoutMs: intOption(values, 'timeout-ms', FETCH_DEFAULTS.timeoutMs, 1, 600_000),
    allow: configFromEnv(context.io.env).web.allow,
    signal: context.io.signal,
  });
  if (context.json) {
    context.printJson(page);
    return 0;
  }
  const { out } = context;
  context.print(out.bold(page.title));
  context.print(out.dim(`${page.finalUrl} · ${page.contentType} · ${page.bytes} bytes${page.truncated ? ' (truncated)' : ''}`));
  context.print();
  context.print(page.markdown);
  return 0;
}
