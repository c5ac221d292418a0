import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createFuzzer, type Doc } from '../helpers/fuzz-run.ts';
import { createResources, type Resources } from '../helpers/resource-fixtures.ts';
import { type Receiver, startReceiver } from '../open-platform/webhooks-helpers.ts';

/**
 * Drives every operation of the live OpenAPI document with malformed and hostile input
 * (helpers/fuzz-cases.ts, checked by helpers/fuzz-run.ts), its path values those of real
 * resources (helpers/resource-fixtures.ts) so an update or an action reaches its row and the
 * service's own checks, not a 404. A new operation is covered with no work here but its resource;
 * a new class of bad input belongs in fuzz-cases.ts. input-fuzz-planted.test.ts shows each check
 * failing. FUZZ_REPORT=<file> writes the failures and the requests that were accepted (for a look).
 */
let t: TestApp;
let dataDir: string;
/** where the fixtures' webhooks deliver: answered at once, so no delivery is retried later */
let hooks: Receiver;
let doc: Doc;
let resources: Resources;
let run: Awaited<ReturnType<typeof createFuzzer>>;

/** Paths whose parameters name no resource a fixture could make, with the reason (none today). */
const NO_RESOURCE: Record<string, string> = {};

/** Body fields named like references that are filters: an id that names nothing matches nothing. */
const filters: Record<string, string> = {
  'POST /api/export-jobs/operation-logs userId': 'exports what that user did: for nobody, an empty file',
  'POST /api/in-app-messages/admin/read-all userId': 'marks that recipient’s messages read: for nobody, none',
};

/** Writes a refused request makes by design, besides the audit log's. */
const expectedWrites: Record<string, string[]> = {
  // a failed sign-in is recorded (the sign-in log is where an administrator sees an attack)
  'identity.session.login': ['INSERT login_logs'],
  // every payment callback is logged, a refused one most of all (spec §3.2)
  'payment.notify.receive': ['INSERT payment_notify_logs'],
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atrium-fuzz-'));
  hooks = await startReceiver();
  t = await createTestApp({ env: { DATA_DIR: dataDir, EGRESS_ALLOW_HOSTS: `127.0.0.1:${hooks.port}` } });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
  // scheduled work writes on its own clock: off for this test, so every write has a request
  const jobs = (await call(t.app, 'GET', '/api/cron-jobs?pageSize=200', { token: t.adminToken })).json().data.list;
  for (const job of jobs as { id: number }[]) {
    const res = await call(t.app, 'POST', `/api/cron-jobs/${job.id}/disable`, { token: t.adminToken });
    expect(res.statusCode, res.body).toBe(200);
  }
  resources = await createResources(t, hooks.origin);
  run = await createFuzzer(t, dataDir);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await hooks?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('input fuzz over the OpenAPI document', () => {
  it('no malformed input is accepted, gets a 5xx, an undeclared answer, an unnamed field or a write', async () => {
    const operationIds = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(operationIds).toEqual(expect.arrayContaining(Object.keys(expectedWrites)));
    const report = await run(doc, {
      resources,
      expectedWrites,
      filters,
      protocolReplies: ['payment.notify.receive'],
    });
    console.log(
      `input fuzz: ${report.operations} operations, ${report.cases} cases, ${report.sent} requests, ` +
        `${report.accepted.length} accepted, ` +
        `${report.stoppedAtPath} stopped at a path value, ${report.failures.length} failures`,
    );
    if (process.env.FUZZ_REPORT)
      writeFileSync(process.env.FUZZ_REPORT, [...report.failures, '--- accepted', ...report.accepted].join('\n'));
    expect(report.failures).toEqual([]);
    // every path parameter has a real value, or a reason why none can be made
    const missing = report.withoutResources.filter((op) => !NO_RESOURCE[op.split(' ')[1] ?? '']);
    expect(missing).toEqual([]);
    // and each request reached its resource: none stopped at a 404 of its path value
    expect(report.stoppedAtPath).toBe(0);
    expect(report.operations).toBeGreaterThan(350);
    expect(report.sent).toBeGreaterThan(5000);
  }, 900_000);
});
