import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedPostgres, embeddedUrl, startEmbeddedPostgres } from '../../src/platform/db/embedded-server.ts';
import { adminQuery, prepareTemplate, withDatabase } from '../helpers/database.ts';

/**
 * Once per `npm test`: the server (TEST_DATABASE_URL, or one embedded cluster started here for the
 * whole run) and a template database, migrated and seeded, that every test file clones
 * (`CREATE DATABASE … TEMPLATE`) instead of migrating its own.
 */
export default async function setup() {
  let embedded: EmbeddedPostgres | null = null;
  let dir: string | null = null;
  if (!process.env.TEST_DATABASE_URL) {
    dir = mkdtempSync(join(tmpdir(), 'atrium-test-pg-'));
    embedded = await startEmbeddedPostgres(dir, { log: () => {}, durable: false });
    process.env.TEST_DATABASE_URL = embeddedUrl(dir, 'superuser');
  }
  const server = process.env.TEST_DATABASE_URL;
  const template = `atrium_tpl_${process.pid}`;
  const stopServer = async () => {
    await embedded?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await adminQuery(server, `DROP DATABASE IF EXISTS ${template}`);
    await adminQuery(server, `CREATE DATABASE ${template}`);
    await prepareTemplate(withDatabase(server, template));
  } catch (err) {
    await stopServer(); // a failed setup must not leave a server running
    throw err;
  }
  process.env.TEST_TEMPLATE_DATABASE = template;

  return async () => {
    await adminQuery(server, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await stopServer();
  };
}
