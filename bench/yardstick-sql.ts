/**
 * The SQL the service sends for the two request scenarios, copied verbatim from its statement log
 * (`log_statement = all` on the embedded server, 92676a7) for the Fastify + pg yardstick
 * (bench/baseline-pg.ts). Every run captures the statements again (bench/sql-capture.ts) and
 * notes any difference: then this file must be updated, or the ratio is not against the same SQL.
 */

/**
 * `GET /api/health`'s database probe: `select 1`, no parameters, so the simple protocol. Sent at
 * most once per 2 s whatever the load (decision 0040: probes are reused), so none per request.
 */
export const HEALTH = 'select 1';
export const HEALTH_REUSE_MS = 2_000;

const USER_COLUMNS =
  '"id", "tenant_id", "username", "password_hash", "nickname", "email", "phone", "department_id", "status", "is_super", "failed_login_count", "locked_until", "password_changed_at", "last_login_at", "last_login_ip", "remark", "created_at", "updated_at"';

/** `GET /api/users?page=1&pageSize=20` as the platform administrator: the page ($1 = 20) and, in parallel, its count. */
export const USERS_PAGE = `select ${USER_COLUMNS} from "users" where "users"."tenant_id" is null order by "users"."id" limit $1`;
export const USERS_COUNT = 'select count(*) from "users" where "users"."tenant_id" is null';

/**
 * The bearer check on a principal-cache miss (sessions.ts: at most once per session per 60 s; every
 * other request finds the principal in the cache and sends no SQL for it): the live session
 * ($1 session id, $2 now, $3 = 1), the user ($1 user id, $2 = 1), then the last-activity touch
 * ($1 now, $2 session id).
 */
export const SESSION_LIVE =
  'select "id", "tenant_id", "user_id", "ip", "user_agent", "created_at", "last_active_at", "expires_at", "revoked_at", "revoke_reason" from "user_sessions" where ("user_sessions"."id" = $1 and "user_sessions"."revoked_at" is null and "user_sessions"."expires_at" > $2) limit $3';
export const USER_BY_ID = `select ${USER_COLUMNS} from "users" where "users"."id" = $1 limit $2`;
export const TOUCH_SESSION = 'update "user_sessions" set "last_active_at" = $1 where "user_sessions"."id" = $2';
export const PRINCIPAL_TTL_MS = 60_000;

/** What one request costs in SQL once the principal is cached, per scenario: compared with each run's capture. */
export const PER_REQUEST: Record<'health' | 'users', string[]> = {
  health: [],
  users: [USERS_PAGE, USERS_COUNT],
};
