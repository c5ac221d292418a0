import Fastify from 'fastify';
import pg from 'pg';
import {
  HEALTH,
  HEALTH_REUSE_MS,
  PRINCIPAL_TTL_MS,
  SESSION_LIVE,
  TOUCH_SESSION,
  USER_BY_ID,
  USERS_COUNT,
  USERS_PAGE,
} from './yardstick-sql.ts';

/**
 * The database yardstick: bare Fastify plus a `pg` pool sending exactly the SQL of the service's
 * scenario (bench/yardstick-sql.ts) to the same server and database the service uses in the run
 * (PG_URL), with the pool size of the service's default (DATABASE_POOL_MAX 10). No auth, no
 * validation, no envelope logic: what the framework and the database cost, the floor of the scenario.
 * SESSION_ID and USER_ID are the bearer's, for the principal check the service makes on a cache miss.
 */
const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 10 });
pool.on('error', () => {});
const sessionId = Number(process.env.SESSION_ID);
const userId = Number(process.env.USER_ID);

// As the service's principal cache: the check runs when nothing is cached, the result kept 60 s.
let principalUntil = 0;
async function principal() {
  if (Date.now() < principalUntil) return;
  const now = new Date();
  await pool.query(SESSION_LIVE, [sessionId, now, 1]);
  await pool.query(USER_BY_ID, [userId, 1]);
  await pool.query(TOUCH_SESSION, [now, sessionId]);
  principalUntil = Date.now() + PRINCIPAL_TTL_MS;
}

const app = Fastify({ logger: false });
app.get('/ready', async () => ({ ok: true }));
// as the service does: one probe reused for HEALTH_REUSE_MS
let probed: { at: number; latencyMs: number } | null = null;
app.get('/api/health', async () => {
  if (!probed || Date.now() - probed.at >= HEALTH_REUSE_MS) {
    const t0 = performance.now();
    await pool.query(HEALTH);
    probed = { at: Date.now(), latencyMs: performance.now() - t0 };
  }
  return { code: 0, message: 'ok', data: { status: 'ok', database: { state: 'up', latencyMs: probed.latencyMs } } };
});
app.get('/api/users', async () => {
  await principal();
  const [page, count] = await Promise.all([pool.query(USERS_PAGE, [20]), pool.query(USERS_COUNT)]);
  const list = page.rows.map(({ password_hash: _hash, ...user }) => user);
  return { code: 0, message: 'ok', data: { list, total: Number(count.rows[0]?.count), page: 1, pageSize: 20 } };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });

process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
