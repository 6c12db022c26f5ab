import { configFromEnv } from '../../config/index.ts';
import { jsonOption, metadataOption, parse, stringOption } from '../args.ts';
import { progressBar, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';

export async function ingest(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(
    argv,
    { collection: { type: 'string', short: 'c' }, model: { type: 'string' }, metadata: { type: 'string', multiple: true }, 'metadata-json': { type: 'string' }, sync: { type: 'boolean', default: false }, 'no-ocr': { type: 'boolean', default: false } },
    { min: 1, max: Infinity, missing: 'ingest needs at least one file, folder or glob' },
  );
  // --metadata k=v wins over the same key in --metadata-json.
  const fromJson = jsonOption(values, 'metadata-json');
  const pairs = metadataOption(values);
  const metadata = fromJson || pairs ? { ...fromJson, ...pairs } : undefined;
  const model = stringOption(values, 'model') ?? configFromEnv(context.io.env).model;
  return withIndex(values, context, 'write', async (dossier) => {
    const bar = await progressBar(context.io, 'ingest', { unit: 'files' });
    let report;
    try {
      report = await dossier.ingest(positionals, {
        collection: stringOption(values, 'collection') ?? 'default',
        metadata,
        sync: values.sync === true,
        ...(values['no-ocr'] === true ? { ocr: false } : {}),
        model: model && model !== 'offline' ? model : undefined,
        onProgress: ({ done, total, bytesDone, bytesTotal, path }) => bar.update(done, total, path, { done: bytesDone, total: bytesTotal }),
        signal: context.io.signal,
      });
    } finally {
      bar.stop();
    }
    const { out, err, io } = context;
    if (context.json) context.printJson(report);
    else {
      const { ingested, updated, skipped, skippedFiles, failed, removed, chunks, seconds } = report;
      const skips = skippedFiles.length ? `skipped ${skipped} (${skipped - skippedFiles.length} unchanged)` : `skipped ${skipped} unchanged`;
      context.print(
        `${out.green(`ingested ${ingested}`)} (${updated} updated), ${skips}, ${failed.length ? out.red(`failed ${failed.length}`) : 'failed 0'}` +
          `${removed ? `, removed ${removed}` : ''}; ${chunks} chunks in ${seconds}s`,
      );
      for (const failure of failed) context.print(`  ${out.red('✗')} ${failure.path}: ${failure.error}`);
      for (const skip of skippedFiles) context.print(`  ${out.yellow('–')} ${skip.path}: skipped, ${skip.reason}`);
    }
    // Said once, on stderr: the descriptions are still there (extractive), but not what was asked for.
    if (report.descriptions?.fallbacks) {
      const { fallbacks, written, reason } = report.descriptions;
      io.stderr.write(err.yellow(`dossier: ${fallbacks} of ${fallbacks + written} descriptions fell back to the extractive one (${reason})\n`));
    }
    if (report.ingested + report.skipped === 0 && report.failed.length > 0) {
      const [first] = report.failed;
      io.stderr.write(`dossier: nothing was ingested; ${report.failed.length} failed (first: ${first.path}: ${first.error})\n`);
      return 1;
    }
    return 0;
  });
}

