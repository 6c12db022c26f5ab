/**
 * The settings that come from the environment, in one typed place. Command-line flags and library
 * options override these; the provider keys (OPENAI_API_KEY, …) are read by the model and embedder
 * resolvers, where the provider is known.
 */
export interface Config {
  /** Index file: DOSSIER_DB, default ./dossier.db. */
  db: string;
  /** Snowball stemming language: DOSSIER_LANGUAGE, default english. */
  language: string;
  /** Embedder spec: DOSSIER_EMBEDDER, default offline. */
  embedder: string;
  /** Model spec for ask (and for descriptions at ingest when not offline): DOSSIER_MODEL, default offline. */
  model: string;
  /** Seconds one model call may take: DOSSIER_MODEL_TIMEOUT, as written (checked where it is used). */
  modelTimeout: string | undefined;
}

export function configFromEnv(env: Record<string, string | undefined> = process.env): Config {
  return {
    db: env.DOSSIER_DB || 'dossier.db',
    language: env.DOSSIER_LANGUAGE || 'english',
    embedder: env.DOSSIER_EMBEDDER || 'offline',
    model: env.DOSSIER_MODEL || 'offline',
    modelTimeout: env.DOSSIER_MODEL_TIMEOUT || undefined,
  };
}
