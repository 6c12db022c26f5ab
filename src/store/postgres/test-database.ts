import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test support for the PostgreSQL store: each test gets a database of its own on the cluster named by
 * DOSSIER_TEST_PG (the admin connection), so runs never see each other's rows. `drop` removes it,
 * forcing off any connection a failed test left open.
 */
export async function freshDatabase(adminUrl = process.env.DOSSIER_TEST_PG): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!adminUrl) throw new Error('DOSSIER_TEST_PG is unset');
  const name = `dossier_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
