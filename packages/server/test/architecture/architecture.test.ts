import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFile, RULES, sourceFiles } from './rules.ts';

const src = join(import.meta.dirname, '../../src');

describe('architecture: the module shape of docs/architecture.md', () => {
  it('holds in every source file', () => {
    const found = [...sourceFiles(src)].flatMap(([file, text]) => checkFile(file, text));
    const report = found.map((v) => `src/${v.file}:${v.line} ${RULES[v.rule]}\n    ${v.text}`);
    expect(report).toEqual([]);
  });
});

// The checks are only worth what they catch: each rule, shown failing on a fixture.
describe('architecture checks catch each violation', () => {
  const cases: [string, string, string, keyof typeof RULES][] = [
    [
      'the kernel importing a module',
      'platform/http/x.ts',
      "import { a } from '../../modules/identity/index.ts';",
      'kernel-imports-module',
    ],
    [
      'a deep import across modules',
      'modules/scheduler/service.ts',
      "import { menus } from '../identity/menus-service.ts';",
      'deep-import-across-modules',
    ],
    [
      'a route importing the context',
      'modules/member/routes.ts',
      "import type { AppContext } from '../../platform/context.ts';",
      'route-gets-context',
    ],
    [
      'a route importing the Db',
      'modules/files/routes/files.ts',
      "import type { Db } from '../../../platform/db/client.ts';",
      'route-gets-context',
    ],
    [
      'a route using ctx',
      'modules/identity/routes/users.ts',
      '    handler: async (req) => listUsers(ctx.db, req.query),',
      'route-gets-context',
    ],
    [
      'Drizzle in a service',
      'modules/identity/users-service.ts',
      "import { eq } from 'drizzle-orm';",
      'sql-outside-repository',
    ],
    [
      'a query in a service',
      'modules/member/service.ts',
      '  const rows = await db.select().from(members);',
      'sql-outside-repository',
    ],
    [
      'a deep import across modules spread over lines',
      'modules/scheduler/service.ts',
      "import {\n  menus,\n  roles,\n} from '../identity/menus-service.ts';",
      'deep-import-across-modules',
    ],
    [
      'a dynamic import across modules',
      'modules/scheduler/service.ts',
      "const load = () => import('../identity/menus-service.ts');",
      'deep-import-across-modules',
    ],
    [
      'a re-export across modules',
      'modules/scheduler/index.ts',
      "export * from '../identity/menus-service.ts';",
      'deep-import-across-modules',
    ],
    [
      'the kernel loading a module lazily',
      'platform/http/x.ts',
      "  const m = await import(\n    '../../modules/identity/index.ts'\n  );",
      'kernel-imports-module',
    ],
    [
      'Drizzle in a service, spread over lines',
      'modules/identity/users-service.ts',
      "import {\n  and,\n  eq,\n} from 'drizzle-orm';",
      'sql-outside-repository',
    ],
    [
      'Drizzle values beside a type in a service',
      'modules/identity/users-service.ts',
      "import { type SQL, sql } from 'drizzle-orm';",
      'sql-outside-repository',
    ],
    ['a query chain in a service', 'modules/member/service.ts', '      .from(members)', 'sql-outside-repository'],
    ['a mapper named otherwise', 'modules/monitor/sites/service.ts', 'function view(row: SiteRow) {', 'mapper-name'],
    [
      'a route file named otherwise',
      'modules/ops/health.ts',
      "import { route } from '../../platform/http/route.ts';\nconst up = () => ctx.database.exec('select 1');",
      'route-gets-context',
    ],
    [
      'a transaction in a helper',
      'modules/messaging/dispatch/notify.ts',
      '  await db.transaction(async (tx) => {',
      'transaction-outside-service',
    ],
    [
      'a transaction in a repository',
      'modules/files/object-repository.ts',
      '  return db.transaction(async (tx) => {',
      'transaction-outside-service',
    ],
    [
      'a queue declared in index.ts',
      'modules/tasks/index.ts',
      '  defineJob<TaskJob>({ name: "tasks.run" });',
      'job-outside-jobs-file',
    ],
    [
      'an operation id under another name',
      'modules/open-platform/oauth/routes.ts',
      "    operation: 'oauth.token.issue',",
      'name-not-spelled-as-module',
    ],
    [
      'a task name in another spelling',
      'modules/open-platform/oauth/jobs.ts',
      "  name: 'openPlatform.purgeExpiredTokens',",
      'name-not-spelled-as-module',
    ],
    [
      'a relative API link in a view',
      'modules/files/files-service.ts',
      '    url: `/api/files/7/content`,',
      'relative-link',
    ],
    [
      'a relative API link as a branch',
      'modules/tasks/task-view.ts',
      '    resultUrl: resultAvailable ? `/api/tasks/7/result` : null,',
      'relative-link',
    ],
    [
      'a link built from the configuration',
      'modules/payment/configs/configs-service.ts',
      '    row.notifyUrl || ctx.config.publicBaseUrl + notifyPath(row.channel);',
      'relative-link',
    ],
  ];
  it.each(cases)('%s', (_name, file, line, rule) => {
    expect(checkFile(file, line).map((v) => v.rule)).toEqual([rule]);
  });

  it('lets the allowed shapes through', () => {
    const allowed: [string, string][] = [
      ['modules/scheduler/service.ts', "import { menus } from '../identity/index.ts';"],
      ['modules/identity/users-repository.ts', "import { and, eq } from 'drizzle-orm';"],
      ['modules/identity/users-repository.ts', '  return db.select().from(users);'],
      ['modules/identity/tables.ts', "import { sql } from 'drizzle-orm';"],
      ['modules/identity/users-service.ts', "import type { SQL } from 'drizzle-orm';"],
      ['modules/identity/users-service.ts', "import {\n  type SQL,\n  type Column,\n} from 'drizzle-orm';"],
      ['modules/identity/users-service.ts', "type Q = import('drizzle-orm').SQL;"],
      ['modules/drive/previews/image-preview.ts', "  sharpModule ??= import('sharp');"],
      ['modules/identity/users-service.ts', '  return db.transaction(async (tx) => repo.insert(tx, row));'],
      ['modules/tasks/jobs.ts', '  export const runTask = defineJob<TaskJob>({ name: "tasks.run" });'],
      ['platform/http/route.ts', "import { x } from '../db/client.ts';"],
      ['modules/open-platform/oauth/routes.ts', "    operation: 'open_platform.oauth_token.issue',"],
      ['modules/open-platform/oauth/jobs.ts', "  name: 'open-platform.purgeExpiredTokens',"],
      ['modules/monitor/sites/service.ts', 'function toSiteView(row: SiteRow) {'],
      ['modules/files/files-service.ts', '    url: links.to(`/api/files/7/content`),'],
      ['modules/files/routes/files.ts', "    url: '/api/files/:id/content',"],
      ['modules/drive/requests/requests-service.ts', "      link: '/drive/access-requests/7',"],
    ];
    for (const [file, line] of allowed) expect(checkFile(file, line), `${file}: ${line}`).toEqual([]);
  });
});
