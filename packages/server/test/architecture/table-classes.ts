/**
 * Where every table goes when the database grows onto Citus (docs/scale-out.md), and so which
 * rules of schema-rules.ts it must meet:
 * - `sharded`: tenant-owned rows, distributed by `tenant_id` (platform-level rows belong to the
 *   platform tenant once it exists);
 * - `reference`: catalogues and configurations that fall back to platform rows: small, read
 *   together with any tenant's rows, copied to every node;
 * - `local`: the installation's own bookkeeping, tied to no tenant, kept on the coordinator.
 * A new table is added here in the commit that creates it (docs/architecture.md, "Tables and the
 * tenant key"). Outside the snapshot, and local too: pg-boss's schema `pgboss` (the job queue)
 * and drizzle's `drizzle.__drizzle_migrations`.
 */
export type TableClass = 'sharded' | 'reference' | 'local';

export const TABLE_CLASSES = {
  // identity
  tenants: 'reference', // every tenant_id points at it, and every node reads it
  users: 'sharded', // platform administrators become rows of the platform tenant
  roles: 'sharded', // a tenant's own roles; platform roles serve platform users only, no fallback
  role_menus: 'sharded', // follows its role (menus is a reference table it may point at)
  user_roles: 'sharded',
  departments: 'sharded',
  positions: 'sharded',
  user_positions: 'sharded',
  user_groups: 'sharded',
  user_group_members: 'sharded',
  user_sessions: 'sharded',
  refresh_tokens: 'sharded', // follows its session; found by its hash, so the token will carry its tenant
  login_logs: 'sharded',
  menus: 'reference', // the console's menu tree, platform-wide (decision 0002)
  identity_seed_marks: 'local', // which built-in seed items this installation applied, once each

  // system
  dict_types: 'reference', // the platform's dictionary is the fallback of a tenant's
  dict_items: 'reference', // follows its type
  system_configs: 'reference', // a tenant's entry wins, the platform's is the fallback
  notices: 'sharded',
  operation_logs: 'sharded',

  // member, scheduler, tasks
  members: 'sharded',
  cron_jobs: 'sharded', // platform-only today (decision 0006): its rows go to the platform tenant
  cron_job_runs: 'sharded', // follows its job
  async_tasks: 'sharded',

  // files
  storage_configs: 'reference', // provider configuration: the platform's is the fallback
  file_objects: 'sharded', // shared today by same-content files of every tenant on one configuration; to be kept per tenant
  managed_files: 'sharded',
  file_refs: 'sharded', // follows its managed file
  file_upload_sessions: 'sharded',
  file_upload_chunks: 'sharded', // follows its session

  // drive
  drive_spaces: 'sharded',
  drive_space_members: 'sharded',
  drive_nodes: 'sharded',
  drive_node_permissions: 'sharded',
  drive_file_versions: 'sharded',
  drive_node_stars: 'sharded',
  drive_recent_access: 'sharded',
  drive_upload_bindings: 'sharded',
  drive_legal_holds: 'sharded',
  drive_activities: 'sharded', // partitioned by month: a distributed partitioned table
  drive_node_renditions: 'sharded',
  drive_access_requests: 'sharded',
  drive_share_links: 'sharded', // opened by token or short code from outside: both will carry the tenant
  drive_collect_submissions: 'sharded',
  drive_share_access_logs: 'sharded', // partitioned by month

  // messaging
  announcements: 'sharded',
  announcement_recipients: 'sharded', // follows its announcement
  announcement_reads: 'sharded', // follows its announcement
  notification_outbox: 'sharded',
  notification_dispatches: 'sharded',
  notification_event_overrides: 'reference', // platform rules, the tenant's on top (spec §2.3)
  notification_preferences: 'sharded', // a recipient's own choices: no platform fallback
  notification_recipient_settings: 'sharded',
  email_configs: 'reference', // provider configuration: the platform's is the fallback
  email_templates: 'reference', // the platform's template is the fallback of a tenant's
  email_send_logs: 'sharded',
  sms_configs: 'reference', // provider configuration: the platform's is the fallback
  sms_templates: 'reference', // the platform's template is the fallback of a tenant's
  sms_send_logs: 'sharded',
  push_configs: 'reference', // provider configuration: the platform's is the fallback
  push_devices: 'sharded',
  push_send_logs: 'sharded',
  in_app_templates: 'reference', // the platform's template is the fallback of a tenant's
  in_app_messages: 'sharded',

  // monitor
  error_sites: 'sharded', // found by site key on ingestion: the key will carry its tenant
  error_groups: 'sharded',
  error_events: 'sharded',
  error_group_identities: 'sharded', // follows its group
  error_alert_rules: 'sharded', // a tenant's own rules: no platform fallback
  error_alert_logs: 'sharded',
  error_source_maps: 'sharded',

  // open-platform
  open_apps: 'sharded', // a tenant's apps act for that tenant only; found by client_id from outside
  oauth_codes: 'sharded',
  oauth_tokens: 'sharded', // found by hash: the token will carry its tenant
  oauth_consents: 'sharded',
  oauth_signing_keys: 'local', // the installation's id_token keys, one JWKS for every tenant
  open_webhook_subscriptions: 'sharded',
  open_webhook_deliveries: 'sharded',
  open_webhook_attempts: 'sharded',

  // payment
  payment_channel_configs: 'reference', // provider configuration: the platform's is the fallback
  payment_orders: 'sharded',
  payment_refunds: 'sharded',
  payment_notify_logs: 'sharded', // an unverified callback has no tenant: the platform tenant's row
  payment_events: 'sharded',

  // platform
  realtime_events: 'sharded',
  settings_values: 'reference', // the platform's values are the defaults of a tenant's
} as const satisfies Record<string, TableClass>;
