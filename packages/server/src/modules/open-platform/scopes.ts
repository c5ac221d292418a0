/**
 * The OAuth 2 scopes applications can be granted. The built-in ones are here; modules add their
 * own at creation (`openPlatform.scopes.register`), before the OpenAPI document is built.
 */
export type ScopeDef = {
  name: string;
  description: string;
  /** identity scopes mean something only with a user (authorization code), never for client_credentials */
  userOnly?: boolean;
};

const BUILT_IN: ScopeDef[] = [
  { name: 'openid', description: 'Sign the user in (OpenID Connect id_token, UserInfo)', userOnly: true },
  { name: 'profile', description: 'The user’s name and username', userOnly: true },
  { name: 'email', description: 'The user’s email address', userOnly: true },
  { name: 'offline_access', description: 'Stay connected while the user is away (refresh tokens)', userOnly: true },
  { name: 'drive:read', description: 'Browse and download drive files in granted spaces' },
  { name: 'drive:write', description: 'Upload, change and delete drive files in granted spaces' },
];

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function createScopeRegistry() {
  const scopes = new Map<string, ScopeDef>();
  const registry = {
    register(def: ScopeDef) {
      if (!SCOPE_TOKEN.test(def.name)) throw new Error(`scope "${def.name}" is not an RFC 6749 scope-token`);
      if (scopes.has(def.name)) throw new Error(`scope "${def.name}" is registered twice`);
      scopes.set(def.name, def);
    },
    get: (name: string) => scopes.get(name) ?? null,
    has: (name: string) => scopes.has(name),
    all: (): ScopeDef[] => [...scopes.values()],
    /** name → description, for the OpenAPI OAuth2 security scheme */
    descriptions: () => Object.fromEntries([...scopes.values()].map((s) => [s.name, s.description])),
  };
  for (const def of BUILT_IN) registry.register(def);
  return registry;
}

export type ScopeRegistry = ReturnType<typeof createScopeRegistry>;

/** RFC 6749 §3.3: space-delimited, case-sensitive; duplicates collapse. Null when a token is malformed. */
export function parseScope(raw: string | undefined): string[] | null {
  if (raw === undefined) return [];
  const parts = raw.split(' ').filter((p) => p !== '');
  if (!parts.every((p) => SCOPE_TOKEN.test(p))) return null;
  return [...new Set(parts)];
}
