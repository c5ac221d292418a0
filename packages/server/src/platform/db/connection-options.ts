/**
 * What every connection of the service to PostgreSQL (the pool, pg-boss's pool, the LISTEN
 * connection) does when the server does not answer. Without a connection timeout, a request
 * waiting for a server that accepts connections but never answers (stopped, overloaded, cut off by
 * the network) would hang; with this one it answers 503 within seconds. The timeout also bounds
 * the wait for a free connection of a full pool: 3 s is far above any wait of a healthy service
 * (the payment storm of the bench, 200 requests on 10 connections, waits < 0.4 s).
 * Keepalive lets the operating system notice a server that vanished from the network.
 */
export const CONNECTION_OPTIONS = {
  connectionTimeoutMillis: 3_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
} as const;
