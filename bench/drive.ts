import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { quantile, type Raw, withInProcessService } from './in-process.ts';
import { limitTarget, type Target } from './targets.ts';

/**
 * The drive's tree scenarios of `npm run bench` (issue 14): listing one page of 50 in a folder of
 * 10,000 nodes as a user who sees the folder through a grant (the visibility and role of every
 * row computed in SQL), over HTTP on a keep-alive connection; and the effective role of a node 20
 * levels deep with 100 grants along its acl chain, through the access service's gate
 * (`authorizeNode`: the node, its space, the space role and the chain's grants). The service is
 * built in this process on a fresh embedded PostgreSQL (as main.ts does), durable, production mode.
 * The drive's upload and download rows sit with the file scenarios (bench/files.ts).
 */
const FOLDER_SIZE = 10_000;
const PAGE = 50;
const LIST_REQUESTS = 500;
const DEPTH = 20;
const GRANTS = 100;
const ROLE_CALLS = 2000;
const WARMUP = 50;
const PASSWORD = `Bench#${randomBytes(6).toString('hex')}`;

export type DriveTreeRow = {
  database: string;
  listP50: number;
  listP99: number;
  roleP50: number;
  roleP99: number;
  notes: string[];
};

export async function driveTreeScenario(database: string): Promise<DriveTreeRow> {
  return withInProcessService({ prefix: 'atrium-bench-drive-', password: PASSWORD }, async ({ app, raw, base }) => {
    const seeded = await seed(app, raw);
    const list = await listing(base, seeded);
    const role = await roles(app, seeded);
    return {
      database,
      listP50: list[0],
      listP99: list[1],
      roleP50: role[0],
      roleP99: role[1],
      notes: [
        `listing: ${LIST_REQUESTS} sequential GET /api/drive/nodes?spaceId&parentId&page&pageSize=${PAGE} (pages 1–${FOLDER_SIZE / PAGE} in turn, name order) after ${WARMUP} warm-up requests, one keep-alive connection; the user holds a viewer grant on the folder and no space role`,
        `effective role: ${ROLE_CALLS} calls of the access gate on the deepest node (depth ${DEPTH}) after ${WARMUP} warm-up calls; ${GRANTS} grants along its chain, ${GRANTS / DEPTH} per level, a fifth of them to the user's own subjects`,
      ],
    };
  });
}

type Seeded = { tenantId: number; userId: number; spaceId: number; folderId: number; deepId: number; token: string };

/** A tenant, a user in a department with roles and groups, a team space, the big folder and the deep chain. */
async function seed(app: FastifyInstance, raw: Raw): Promise<Seeded> {
  const { hashPassword } = await import('../packages/server/src/platform/crypto/passwords.ts');
  const one = async (text: string, params: unknown[] = []) => (await raw.query(text, params)).rows[0] as { id: number };
  const tenantId = (await one(`insert into tenants (code, name) values ('drive', 'Drive bench') returning id`)).id;
  const dept = (await one('insert into departments (tenant_id, name) values ($1, $2) returning id', [tenantId, 'Top']))
    .id;
  const sub = (
    await one(
      'insert into departments (tenant_id, name, parent_id, ancestor_ids) values ($1, $2, $3, $4) returning id',
      [tenantId, 'Sub', dept, [dept]],
    )
  ).id;
  const hash = await hashPassword(PASSWORD);
  const userId = (
    await one(
      `insert into users (tenant_id, username, password_hash, nickname, department_id) values ($1, 'reader', $2, 'Reader', $3) returning id`,
      [tenantId, hash, sub],
    )
  ).id;
  const role = (
    await one(`insert into roles (tenant_id, code, name, permissions) values ($1, 'drive', 'Drive', $2) returning id`, [
      tenantId,
      ['drive:node:view', 'drive:space:view'],
    ])
  ).id;
  await raw.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [tenantId, userId, role]);
  const group = (await one(`insert into user_groups (tenant_id, name) values ($1, 'Readers') returning id`, [tenantId]))
    .id;
  await raw.query('insert into user_group_members (tenant_id, group_id, user_id) values ($1, $2, $3)', [
    tenantId,
    group,
    userId,
  ]);
  const spaceId = (
    await one(`insert into drive_spaces (tenant_id, type, name) values ($1, 'team', 'Bench space') returning id`, [
      tenantId,
    ])
  ).id;

  const node = async (
    parent: { id: number; ancestors: number[]; chain: number[] } | null,
    name: string,
    type = 'folder',
  ) => {
    const id = (await one(`select nextval(pg_get_serial_sequence('drive_nodes', 'id'))::int as id`)).id;
    const ancestors = parent ? [...parent.ancestors, parent.id] : [];
    const chain = parent ? [...parent.chain, id] : [id];
    await raw.query(
      `insert into drive_nodes (id, tenant_id, space_id, parent_id, type, name, ancestor_ids, acl_chain_ids, acl_open)
       values ($1, $2, $3, $4, $5, $6, $7, $8, true)`,
      [id, tenantId, spaceId, parent?.id ?? null, type, name, ancestors, chain],
    );
    return { id, ancestors, chain };
  };
  const grant = (nodeId: number, subjectType: string, subjectId: number, role: string) =>
    raw.query(
      `insert into drive_node_permissions (tenant_id, space_id, node_id, subject_type, subject_id, role)
       values ($1, $2, $3, $4, $5, $6)`,
      [tenantId, spaceId, nodeId, subjectType, subjectId, role],
    );

  // the big folder: 10,000 children (a tenth of them folders), listed through a grant on the folder
  const big = await node(null, 'Big folder');
  await grant(big.id, 'user', userId, 'viewer');
  await raw.query(
    `insert into drive_nodes (id, tenant_id, space_id, parent_id, type, name, ancestor_ids, acl_chain_ids, acl_open, size, mime)
     select id, $1, $2, $3, case when g % 10 = 0 then 'folder' else 'file' end, 'item-' || lpad(g::text, 5, '0') || '.txt',
       array[$3]::int[], array[$3, id]::int[], true, g, 'text/plain'
     from (select nextval(pg_get_serial_sequence('drive_nodes', 'id'))::int as id, g from generate_series(1, $4) g) s`,
    [tenantId, spaceId, big.id, FOLDER_SIZE],
  );

  // the deep chain: 20 levels, 5 grants per level; one per level reaches the user (dept, role, group, user in turn)
  let parent: { id: number; ancestors: number[]; chain: number[] } | null = null;
  const mine: [string, number][] = [
    ['department', dept],
    ['role', role],
    ['group', group],
    ['user', userId],
  ];
  for (let level = 0; level < DEPTH; level++) {
    parent = await node(parent, `level-${level}`);
    const [type, id] = mine[level % mine.length] as [string, number];
    await grant(parent.id, type, id, level === DEPTH - 1 ? 'editor' : 'viewer');
    for (let k = 0; k < GRANTS / DEPTH - 1; k++) await grant(parent.id, 'user', 1_000_000 + level * 10 + k, 'editor');
  }
  await raw.query('analyze drive_nodes; analyze drive_node_permissions');
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'reader', password: PASSWORD, tenantCode: 'drive' },
  });
  if (res.statusCode !== 200) throw new Error(`drive bench sign-in failed: ${res.body}`);
  const token = res.json().data.accessToken as string;
  return { tenantId, userId, spaceId, folderId: big.id, deepId: (parent as { id: number }).id, token };
}

/** p50 and p99 in ms of listing one page of the big folder. */
async function listing(base: string, s: Seeded): Promise<[number, number]> {
  const pages = FOLDER_SIZE / PAGE;
  const once = async (i: number) => {
    const url = `${base}/api/drive/nodes?spaceId=${s.spaceId}&parentId=${s.folderId}&page=${(i % pages) + 1}&pageSize=${PAGE}`;
    const t0 = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${s.token}` } });
    const body = (await res.json()) as { data?: { list: unknown[]; total: number } };
    const ms = performance.now() - t0;
    if (res.status !== 200 || body.data?.list.length !== PAGE || body.data.total !== FOLDER_SIZE) {
      throw new Error(`drive listing answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
    return ms;
  };
  for (let i = 0; i < WARMUP; i++) await once(i);
  const times: number[] = [];
  for (let i = 0; i < LIST_REQUESTS; i++) times.push(await once(i));
  times.sort((a, b) => a - b);
  return [quantile(times, 0.5), quantile(times, 0.99)];
}

/** p50 and p99 in ms of the access gate on the deepest node. */
async function roles(app: FastifyInstance, s: Seeded): Promise<[number, number]> {
  const scope = {
    tenantId: s.tenantId,
    requestId: 'bench',
    ip: '127.0.0.1',
    principal: {
      kind: 'user' as const,
      userId: s.userId,
      tenantId: s.tenantId,
      username: 'reader',
      isSuper: false,
      permissions: new Set(['drive:node:view']),
      sessionId: 0,
    },
  };
  const access = app.drive.core.access;
  const caller = await access.caller(scope);
  const once = async () => {
    const t0 = performance.now();
    const { role } = await access.authorizeNode(caller, s.deepId, 'browse');
    const ms = performance.now() - t0;
    if (role !== 'editor') throw new Error(`drive bench: the deep node resolved to ${role}, expected editor`);
    return ms;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < ROLE_CALLS; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return [quantile(times, 0.5), quantile(times, 0.99)];
}

export function driveTreeTargets(rows: DriveTreeRow[]): Target[] {
  return rows.flatMap((r) => [
    limitTarget(
      `drive: list a page of ${PAGE} in a folder of ${FOLDER_SIZE.toLocaleString('en-US')} (p99)`,
      r.listP99,
      'ms',
      50,
      {
        strict: true,
        digits: 1,
      },
    ),
    limitTarget(`drive: effective role, depth ${DEPTH}, ${GRANTS} grants on the chain (p99)`, r.roleP99, 'ms', 5, {
      strict: true,
      digits: 2,
    }),
  ]);
}

type Table = (head: string[], body: string[][], textColumns?: number) => string[];

/** The "## Drive" section of bench/results/latest.md. */
export function driveSection(rows: DriveTreeRow[], table: Table, extraNotes: string[] = []): string[] {
  const f = (n: number, d = 2) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  return [
    '## Drive',
    '',
    'The drive tree scenarios, with the service built in the bench process on a fresh embedded PostgreSQL ' +
      '(production mode, memory cache). The upload and download rows of the drive are in the Files table above, ' +
      'as ratios to the managed-file rows of the same run.',
    '',
    ...table(
      ['database', 'list p50 ms', 'list p99 ms', 'role p50 ms', 'role p99 ms'],
      rows.map((r) => [r.database, f(r.listP50), f(r.listP99), f(r.roleP50, 3), f(r.roleP99, 3)]),
      1,
    ),
    '',
    ...[...rows.flatMap((r) => r.notes), ...extraNotes].map((n) => `- ${n}`),
    '',
  ];
}
