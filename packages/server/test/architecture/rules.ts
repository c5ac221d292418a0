import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/**
 * The module shape of docs/architecture.md as checks over source text: cheap, exhaustive, and
 * each finding names the file and line. Paths are relative to `src/`, with forward slashes.
 */
export type Violation = { file: string; line: number; rule: RuleId; text: string };

export type RuleId =
  | 'kernel-imports-module'
  | 'deep-import-across-modules'
  | 'route-gets-context'
  | 'sql-outside-repository'
  | 'transaction-outside-service'
  | 'job-outside-jobs-file'
  | 'name-not-spelled-as-module'
  | 'mapper-name'
  | 'relative-link';

export const RULES: Record<RuleId, string> = {
  'kernel-imports-module': 'platform/ is the kernel: it imports no module',
  'deep-import-across-modules': 'another module is reached only through its index.ts (or api.ts)',
  'route-gets-context': 'route files receive services: no AppContext, no Db, no ctx',
  'sql-outside-repository': 'Drizzle and SQL only in *-repository.ts / repository.ts (tables in tables.ts)',
  'transaction-outside-service': 'transactions start in services (*-service.ts / service.ts) only',
  'job-outside-jobs-file': 'jobs and system tasks are declared in the module’s jobs.ts only',
  'mapper-name': 'row-to-response mappers are named to<Thing>View',
  'relative-link':
    'links handed out are absolute: built by ctx.links (platform/http/public-links.ts), not from a relative /api/ path or config.publicBaseUrl',
  'name-not-spelled-as-module':
    'operation ids start with the module’s dotted name (open_platform.), job and task names with its folder’s (open-platform.)',
};

/** a link-like field given a relative API path, directly or as a branch of a condition */
const RELATIVE_API_LINK = /\b(?:url|link|href|[a-z]\w*(?:Url|Link|Href))\s*:\s*(?:[^,;(]*\?\s*)?[`'"]\/api\//;

/** by its name, or by what it does: a module file that declares routes is a route file */
const isRouteFile = (f: string, text = '') =>
  /(^|\/)routes(\.ts$|\/)|-routes\.ts$/.test(f) || /\/platform\/http\/route\.ts'/.test(text);
const isRepository = (f: string) => /(^|\/|-)repository\.ts$/.test(f);
const isService = (f: string) => /(^|\/|-)service\.ts$/.test(f);
const isTables = (f: string) => /(^|\/|-)tables\.ts$/.test(f);
const isJobsFile = (f: string) => /(^|\/)jobs\.ts$/.test(f);

/** `modules/identity/routes/users.ts` → `identity`; kernel and root files → null */
function moduleOf(file: string): string | null {
  const m = /^modules\/([^/]+)\//.exec(file);
  return m ? (m[1] ?? null) : null;
}

type ImportRef = { spec: string; typeOnly: boolean; line: number };

/**
 * Every module a file reaches, read by the TypeScript parser rather than line by line, so an
 * import spread over several lines, an `export … from`, a dynamic `import()` and an
 * `import x = require()` are all seen. Type-only: `import type`, or every named item `type`.
 */
export function importsOf(file: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: ImportRef[] = [];
  const add = (spec: ts.Node | undefined, typeOnly: boolean, at: ts.Node) => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    out.push({ spec: spec.text, typeOnly, line: source.getLineAndCharacterOfPosition(at.getStart(source)).line });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : null;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!named && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly, node);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly, node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly, node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false, node);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every finding in one source file (`file` relative to src/, `text` its content). */
export function checkFile(file: string, text: string): Violation[] {
  const out: Violation[] = [];
  const lines = text.split('\n');
  const mod = moduleOf(file);
  const add = (line: number, rule: RuleId) => out.push({ file, line: line + 1, rule, text: lines[line]?.trim() ?? '' });

  for (const { spec, typeOnly, line } of importsOf(file, text)) {
    const target = spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)) : null;
    if (target) {
      const targetMod = moduleOf(target);
      if (file.startsWith('platform/') && target.startsWith('modules/')) add(line, 'kernel-imports-module');
      if (mod && targetMod && targetMod !== mod && !/^modules\/[^/]+\/(index|api)\.ts$/.test(target))
        add(line, 'deep-import-across-modules');
      if (mod && isRouteFile(file, text) && /^platform\/(context|db\/client)\.ts$/.test(target))
        add(line, 'route-gets-context');
    }
    if (mod && spec === 'drizzle-orm' && !typeOnly && !isRepository(file) && !isTables(file))
      add(line, 'sql-outside-repository');
  }

  lines.forEach((src, i) => {
    if (!mod) return;
    if (isRouteFile(file, text) && /\bctx\.|\bctx\b\s*[,)]/.test(src)) add(i, 'route-gets-context');
    // a query written on one line (`db.select(`), or a chain continued on the next lines (`.from(`)
    const query =
      /\b(db|tx|ctx\.db)\s*\.\s*(select|selectDistinct|insert|update|delete|execute)\s*\(/.test(src) ||
      /^\s*\.(from|innerJoin|leftJoin|onConflictDoUpdate|onConflictDoNothing|returning)\s*\(/.test(src);
    if (!isRepository(file) && query) add(i, 'sql-outside-repository');
    if (!isService(file) && /\.transaction\s*\(/.test(src)) add(i, 'transaction-outside-service');
    if (!isJobsFile(file) && /\b(defineJob|defineQueue|defineSystemTask|registerSystemTask)\s*[(<]/.test(src))
      add(i, 'job-outside-jobs-file');
    if (/\b(function|const)\s+(view|\w+Dto|\w+ToDto)\b/.test(src)) add(i, 'mapper-name');
    if (/\bpublicBaseUrl\b/.test(src) || (!isRouteFile(file, text) && RELATIVE_API_LINK.test(src)))
      add(i, 'relative-link');
    const operation = /\boperation:\s*'([A-Za-z_-]+)\./.exec(src)?.[1];
    if (operation && operation !== mod.replaceAll('-', '_')) add(i, 'name-not-spelled-as-module');
    const jobName = isJobsFile(file) ? /^\s*name:\s*'([A-Za-z_-]+)\./.exec(src)?.[1] : undefined;
    if (jobName && jobName !== mod) add(i, 'name-not-spelled-as-module');
  });
  return out;
}

/** Every `.ts` source under `src/` (tests beside the code excluded), keyed by path relative to src/. */
export function sourceFiles(srcDir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
        files.set(relative(srcDir, p).split('\\').join('/'), readFileSync(p, 'utf8'));
    }
  };
  walk(srcDir);
  return files;
}
