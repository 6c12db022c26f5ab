import { resolve } from 'node:path';
import { configFromEnv } from '../../config/index.ts';
import { jsonOption, metadataOption, parse, stringOption } from '../args.ts';
import { progressBar, UsageError, type CommandContext } from '../io.ts';
import { withIndex } from './open.ts';

export async function ingest(argv: string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parse(argv, 'ingest', {
    min: 1,
    max: Infinity,
    missing: 'ingest needs at least one file, folder or glob',
  });
  // --metadata k=v wins over the same key in --metadata-json.
  const fromJson = jsonOption(values, 'metadata-json');
  const pairs = metadataOption(values);
  const metadata = fromJson || pairs ? { ...fromJson, ...pairs } : undefined;
  const model = stringOption(values, 'model') ?? configFromEnv(context.io.env).model;
  if (values.queue === true)
    return enqueue(
      positionals,
      {
        collection: stringOption(values, 'collection') ?? 'default',
        metadata,
        db: stringOption(values, 'db') ?? configFromEnv(context.io.env).db,
      },
      context,
    );
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
      const skips = skippedFiles.length
        ? `skipped ${skipped} (${skipped - skippedFiles.length} unchanged)`
        : `skipped ${skipped} unchanged`;
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
      io.stderr.write(
        err.yellow(`dossier: ${fallbacks} of ${fallbacks + written} descriptions fell back to the extractive one (${reason})\n`),
      );
    }
    // Skips with a reason (a dotfile, an image without text) are not documents: only unchanged ones count here.
    const unchanged = report.skipped - report.skippedFiles.length;
    if (report.ingested + unchanged === 0 && report.failed.length > 0) {
      const [first] = report.failed;
      io.stderr.write(`dossier: nothing was ingested; ${report.failed.length} failed (first: ${first.path}: ${first.error})\n`);
      return 1;
    }
    if (values.strict === true && report.failed.length > 0) {
      const [first] = report.failed;
      io.stderr.write(`dossier: ${report.failed.length} failed with --strict (first: ${first.path}: ${first.error})\n`);
      return 1;
    }
    return 0;
  });
}

/**
 * `ingest --queue`: one job in the PostgreSQL queue for `dossier worker` (or a server's workers) to
 * ingest. Nothing is copied: the paths are made absolute and must be on a file system the workers share.
 */
async function enqueue(
  paths: string[],
  options: { collection: string; metadata?: Record<string, unknown>; db: string },
  context: CommandContext,
): Promise<number> {
  const { isPostgresUrl, openServerState } = await import('../../server/state/index.ts');
  if (!isPostgresUrl(options.db))
    throw new UsageError(
      '--queue needs a PostgreSQL index (--db postgres://…): the job queue lives there; without --queue an SQLite index ingests right away',
    );
  const { assertCollectionName } = await import('../../dossier.ts');
  assertCollectionName(options.collection);
  const state = await openServerState(options.db);
  try {
    // Jobs belong to a user; from the command line that is the local one, as on a loopback server.
    const user = await state.localUser();
    const job = await state.queue()!.enqueueJob(user.id, options.collection, {
      paths: paths.map((path) => resolve(path)),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    });
    const shown = { id: job.id, collection: job.collection, status: job.status };
    if (context.json) context.printJson({ job: shown });
    else context.print(`queued job ${job.id}: ${paths.length} path${paths.length === 1 ? '' : 's'} into ${job.collection}`);
  } finally {
    await state.close();
  }
  return 0;
}
