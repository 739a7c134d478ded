import { isIP } from 'node:net';

/** Runtime configuration: built once from the environment, validated, frozen and passed down. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** `sqlite:<path>` (`sqlite::memory:` for tests) or `postgres://…` */
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  readonly adminToken: string | undefined;
  readonly logLevel: string;
  /** Largest accepted request body, in bytes (contract §5: 1 MiB). */
  readonly bodyLimit: number;
  /**
   * Which peers' X-Forwarded-For to trust for the client ip (audit entries, the failed-authentication
   * limit): false (none), or the proxies' addresses/CIDRs, comma-separated (Fastify's `trustProxy`).
   */
  readonly trustProxy: false | string;
  /** The longest a request may take to arrive, headers and body, in ms (slow clients cannot hold connections). */
  readonly requestTimeoutMs: number;
  readonly limits: LimitsConfig;
  /** Public address of the portal, the base of invite links. */
  readonly portalUrl: string;
  /** Whether PORTAL_URL was given (else portalUrl is http://HOST:PORT, and a server records where it really listens). */
  readonly portalUrlGiven: boolean;
  /** On SIGTERM: how long to keep serving (readiness failing, connections closing) before closing. */
  readonly shutdownGraceMs: number;
  /** Lifetime of an end-user session token (admin surface, `portal sessions create`), in seconds. */
  readonly sessionLifetimeSeconds: number;
  /**
   * How long a verified credential is answered from the process's cache (lib/credential-cache.ts), in
   * ms, at most 1000: the longest a change made by another process (a key revoked) can take to apply here. 0: no cache.
   */
  readonly authCacheTtlMs: number;
  /** E-mail delivery: `smtp://` or `smtps://` URL of the server notifications' e-mails are sent through; unset, they stay queued in the outbox. */
  readonly smtpUrl: string | undefined;
  /** The From of those e-mails. */
  readonly smtpFrom: string;
  /** After this many days the audit log's ip and User-Agent are blanked (personal data); undefined: kept. */
  readonly auditPiiDays: number | undefined;
  /** PORTAL_WEBHOOKS_ALLOW_PRIVATE=1: webhook endpoints may be on loopback, link-local or private addresses (tests, closed networks). */
  readonly webhooksAllowPrivate: boolean;
  /** portal_outbox_stuck is 1 when an outbox's oldest due work has waited this long (OUTBOX_STUCK_MINUTES, default 15), in ms. */
  readonly outboxStuckMs: number;
  /** A second port serving only GET /metrics, without the admin token (keep it off the public network). */
  readonly metricsPort: number | undefined;
  /** Files' content (FILES_DIR, default ./data/files): a local directory, created if missing. */
  readonly filesDir: string;
  /** PostgreSQL connections per process (DATABASE_POOL_MAX, default 10): replicas × this stays under max_connections. */
  readonly databasePoolMax: number;
  /** FILES_STORE=s3://bucket/prefix: files' content in an S3-compatible bucket instead of FILES_DIR. */
  readonly filesS3: S3StoreSettings | undefined;
  /** OpenID providers people may sign in with (OIDC_PROVIDERS); none by default. */
  readonly oidcProviders: readonly OidcProviderSettings[];
  /** The largest file content an upload takes, in bytes (FILES_MAX_BYTES, default 100 MiB): past it a 413. */
  readonly filesMaxBytes: number;
  /** How long a signed upload or download URL works, in seconds (FILES_URL_TTL_SECONDS, default 900). */
  readonly filesUrlTtlSeconds: number;
  /** How long the sweep keeps content no row names in quarantine before deleting it, in days (FILES_QUARANTINE_DAYS, default 7). */
  readonly filesQuarantineDays: number;
}

interface BucketConfig {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

interface LimitsConfig {
  /** false turns burst and quota limits off (benchmarks compare against it); auth failures stay limited. */
  readonly enabled: boolean;
  /** GET and HEAD */
  readonly read: BucketConfig;
  /** every other method */
  readonly write: BucketConfig;
  /** failed authentications allowed per client IP per minute */
  readonly authFailuresPerMinute: number;
  /** prefix of every Redis key (several deployments may share one Redis) */
  readonly redisKeyPrefix: string;
}

export class ConfigError extends Error {}

/**
 * \`portal serve\` on a wildcard address (HOST 0.0.0.0 or ::, as in a container) needs PORTAL_URL: the links it makes
 * (invites, sign-in and reset links, e-mails' links, files' URLs) would otherwise be http://0.0.0.0:…, which reach
 * nobody. Refused at start, naming the variable, rather than links that fail later in someone's inbox.
 */
export function assertPublicUrl(config: Pick<Config, 'host' | 'port' | 'portalUrlGiven'>): void {
  if (config.portalUrlGiven || (config.host !== '0.0.0.0' && config.host !== '::')) return;
  throw new ConfigError(
    `Invalid configuration:\n  - PORTAL_URL is required when HOST is ${config.host} (every address): the links this server makes ` +
      '(invites, sign-in and reset links, e-mails, files) need the address people reach it at, e.g. ' +
      `PORTAL_URL=http://127.0.0.1:${config.port} or https://portal.example.com`,
  );
}

const DEFAULTS = {
  PORT: '8080',
  HOST: '127.0.0.1',
  DATABASE_URL: 'sqlite:./data/portal.db',
  LOG_LEVEL: 'info',
};

/**
 * TRUST_PROXY: `false`, or the balancers' addresses/CIDRs, comma-separated (`10.0.0.0/8,127.0.0.1`;
 * proxy-addr's names `loopback`, `linklocal`, `uniquelocal` too). Hops are trusted only while they come
 * from those addresses, so the client ip is the first untrusted one. `true` (trust every hop) is refused:
 * the leftmost X-Forwarded-For entry is written by the caller, so any client could forge its ip and
 * escape the failed-authentication limit. A hop count is refused too: Fastify 5 no longer honours one
 * (it cannot check the immediate peer), so it would silently trust nothing.
 */
function trustProxyVar(raw: string | undefined, problems: string[]): false | string {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.every(isProxyAddress)) return entries.join(',');
  problems.push(
    `TRUST_PROXY must be false or the proxies' addresses/CIDRs, comma-separated, e.g. 10.0.0.0/8 (got "${value}"): each an IPv4 or IPv6 address, with at most one /prefix of 1–32 (IPv4) or 1–128 (IPv6); neither true (a client could forge X-Forwarded-For) nor a hop count (Fastify ignores it)`,
  );
  return false;
}

/**
 * One TRUST_PROXY entry Fastify's proxy-addr takes without throwing at start: one of its names, or an IP
 * address (node's `isIP`, no zone) with an optional prefix length within the address's size (proxy-addr
 * refuses /0 too).
 */
function isProxyAddress(entry: string): boolean {
  if (/^(loopback|linklocal|uniquelocal)$/.test(entry)) return true;
  const match = /^([0-9a-fA-F.:]+)(?:\/([0-9]{1,3}))?$/.exec(entry);
  if (!match) return false;
  const version = isIP(match[1]);
  if (version === 0) return false;
  if (match[2] === undefined) return true;
  const prefix = Number(match[2]);
  return prefix >= 1 && prefix <= (version === 4 ? 32 : 128);
}

function intVar(env: Record<string, string | undefined>, name: string, fallback: string, problems: string[]): number {
  const raw = env[name] ?? fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) problems.push(`${name} must be a non-negative integer (got "${raw}")`);
  return value;
}

/** The portal's host name for a default From address (an IP address is not a mail domain: localhost then). */
function mailDomainOf(url: string): string {
  const host = new URL(url).hostname;
  return /^[\d.]+$|[:[]/.test(host) ? 'localhost' : host;
}

/** Reads every variable at once and reports all problems together. */
/** Where an S3-compatible store is, from FILES_STORE=s3://bucket/prefix and the S3_* settings (config.ts). */
export interface S3StoreSettings {
  readonly bucket: string;
  /** Prepended to every key: empty, or ending in `/`. */
  readonly prefix: string;
  /** MinIO, Ceph, R2…: their URL; unset for AWS itself. */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** `http://endpoint/bucket/key` rather than `http://bucket.endpoint/key` (MinIO and most self-hosted stores). */
  readonly forcePathStyle: boolean;
  /** Unset: the AWS SDK's own chain (AWS_* environment, shared files, an instance or task role). */
  readonly credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/**
 * FILES_STORE: unset (or `local`) for FILES_DIR, or `s3://bucket/prefix` with S3_ENDPOINT (MinIO, Ceph, R2…; unset
 * for AWS), S3_REGION (default us-east-1), S3_FORCE_PATH_STYLE=1 (most self-hosted stores), and the
 * credentials AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (unset: the AWS SDK's own chain, such as an instance role).
 */
/** An OpenID provider people may sign in with (OIDC_PROVIDERS). */
export interface OidcProviderSettings {
  /** What URLs and linked identities name it (`google`: unlinking one records googleDelinked). */
  id: string;
  /** What the sign-in page's button says. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * OIDC_PROVIDERS=google,acme, then for each OIDC_<ID>_CLIENT_ID, OIDC_<ID>_CLIENT_SECRET, OIDC_<ID>_ISSUER (Google's by
 * default for `google`) and OIDC_<ID>_NAME (the button's text). The redirect URI to register at the provider is
 * `PORTAL_URL/portal/oidc/<id>/callback`, one for every workspace.
 */
function oidcProvidersVar(env: NodeJS.ProcessEnv, problems: string[]): OidcProviderSettings[] {
  const ids = (env.OIDC_PROVIDERS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return ids.flatMap((id) => {
    if (!/^[a-z][a-z0-9-]{0,30}$/.test(id)) {
      problems.push(`OIDC_PROVIDERS: "${id}" must be lowercase letters, digits and dashes`);
      return [];
    }
    const key = `OIDC_${id.toUpperCase().replaceAll('-', '_')}`;
    const issuer = env[`${key}_ISSUER`] || (id === 'google' ? 'https://accounts.google.com' : '');
    const clientId = env[`${key}_CLIENT_ID`] ?? '';
    const clientSecret = env[`${key}_CLIENT_SECRET`] ?? '';
    if (!/^https?:\/\/[^\s]+$/.test(issuer)) problems.push(`${key}_ISSUER must be the provider's issuer URL`);
    if (!clientId || !clientSecret) problems.push(`${key}_CLIENT_ID and ${key}_CLIENT_SECRET are required for OIDC provider "${id}"`);
    const name = env[`${key}_NAME`] || (id === 'google' ? 'Google' : id);
    return [{ id, name, issuer: issuer.replace(/\/+$/, ''), clientId, clientSecret }];
  });
}

function s3StoreVar(env: NodeJS.ProcessEnv, problems: string[]): S3StoreSettings | undefined {
  const store = env.FILES_STORE;
  if (!store || store === 'local') return undefined;
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(store);
  if (!match) {
    problems.push(`FILES_STORE must be "local" or s3://bucket/prefix (got "${store}")`);
    return undefined;
  }
  const endpoint = env.S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\/[^\s]+$/.test(endpoint)) problems.push(`S3_ENDPOINT must be an http(s) URL (got "${endpoint}")`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  return {
    bucket: match[1],
    prefix: prefix ? `${prefix}/` : '',
    endpoint,
    region: env.S3_REGION || 'us-east-1',
    forcePathStyle: env.S3_FORCE_PATH_STYLE === '1' || env.S3_FORCE_PATH_STYLE === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const port = intVar(env, 'PORT', DEFAULTS.PORT, problems);
  const databaseUrl = env.DATABASE_URL || DEFAULTS.DATABASE_URL;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
  }
  const shutdownGraceMs = intVar(env, 'SHUTDOWN_GRACE_MS', '1000', problems);
  const sessionLifetimeSeconds = intVar(env, 'SESSION_LIFETIME_SECONDS', '86400', problems);
  if (sessionLifetimeSeconds === 0) problems.push('SESSION_LIFETIME_SECONDS must be at least 1');
  const requestTimeoutMs = intVar(env, 'REQUEST_TIMEOUT_MS', '30000', problems);
  if (requestTimeoutMs < 1000) problems.push('REQUEST_TIMEOUT_MS must be at least 1000');
  const trustProxy = trustProxyVar(env.TRUST_PROXY, problems);
  const authCacheTtlMs = intVar(env, 'AUTH_CACHE_TTL_MS', '1000', problems);
  if (authCacheTtlMs > 1000) problems.push('AUTH_CACHE_TTL_MS must be at most 1000 (a revoked key must stop working within a second)');
  const limits: LimitsConfig = {
    enabled: env.LIMITS_ENABLED !== 'false',
    read: {
      capacity: intVar(env, 'RATE_LIMIT_GET_CAPACITY', '20', problems),
      refillPerSecond: intVar(env, 'RATE_LIMIT_GET_REFILL', '100', problems),
    },
    write: {
      capacity: intVar(env, 'RATE_LIMIT_WRITE_CAPACITY', '5', problems),
      refillPerSecond: intVar(env, 'RATE_LIMIT_WRITE_REFILL', '20', problems),
    },
    authFailuresPerMinute: intVar(env, 'AUTH_FAILURES_PER_MINUTE', '30', problems),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'portal:',
  };
  for (const [name, bucket] of [
    ['GET', limits.read],
    ['WRITE', limits.write],
  ] as const) {
    if (bucket.capacity < 1 || bucket.refillPerSecond < 1)
      problems.push(`RATE_LIMIT_${name}_CAPACITY and RATE_LIMIT_${name}_REFILL must be at least 1`);
  }
  const logLevel = env.LOG_LEVEL || DEFAULTS.LOG_LEVEL;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`);
  }
  const adminToken = env.PORTAL_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) problems.push('PORTAL_ADMIN_TOKEN must be at least 16 characters');
  if (env.PORTAL_URL && !/^https?:\/\/[^\s]+$/.test(env.PORTAL_URL))
    problems.push(`PORTAL_URL must be an http(s) URL (got "${env.PORTAL_URL}")`);
  const auditPiiDays = env.PORTAL_AUDIT_PII_DAYS ? intVar(env, 'PORTAL_AUDIT_PII_DAYS', '0', problems) : undefined;
  if (auditPiiDays === 0) problems.push('PORTAL_AUDIT_PII_DAYS must be at least 1 (unset keeps them)');
  const databasePoolMax = intVar(env, 'DATABASE_POOL_MAX', '10', problems);
  if (databasePoolMax < 1 || databasePoolMax > 1000) problems.push('DATABASE_POOL_MAX must be 1 to 1000');
  const outboxStuckMinutes = intVar(env, 'OUTBOX_STUCK_MINUTES', '15', problems);
  if (outboxStuckMinutes < 1) problems.push('OUTBOX_STUCK_MINUTES must be at least 1');
  const metricsPort = env.METRICS_PORT ? intVar(env, 'METRICS_PORT', '0', problems) : undefined;
  if (metricsPort !== undefined && (metricsPort > 65535 || metricsPort === port))
    problems.push('METRICS_PORT must be a port (1-65535) other than PORT');
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) problems.push('SMTP_URL must be an smtp:// or smtps:// URL');
  const filesMaxBytes = intVar(env, 'FILES_MAX_BYTES', String(100 * 1024 * 1024), problems);
  if (filesMaxBytes < 1) problems.push('FILES_MAX_BYTES must be at least 1');
  const filesUrlTtlSeconds = intVar(env, 'FILES_URL_TTL_SECONDS', '900', problems);
  if (filesUrlTtlSeconds < 1 || filesUrlTtlSeconds > 7 * 86_400) problems.push('FILES_URL_TTL_SECONDS must be 1 to 604800 (a week)');
  const filesQuarantineDays = intVar(env, 'FILES_QUARANTINE_DAYS', '7', problems);
  if (filesQuarantineDays < 1) problems.push('FILES_QUARANTINE_DAYS must be at least 1 (a sweep’s mistake must stay recoverable)');
  const oidcProviders = oidcProvidersVar(env, problems);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  const host = env.HOST || DEFAULTS.HOST;
  // An IPv6 address is bracketed in a URL (HOST=:: made an invalid one).
  const portalUrl = (env.PORTAL_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return Object.freeze({
    port,
    host,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    adminToken,
    logLevel,
    bodyLimit: 1024 * 1024,
    trustProxy,
    requestTimeoutMs,
    shutdownGraceMs,
    sessionLifetimeSeconds,
    authCacheTtlMs,
    limits,
    portalUrl,
    portalUrlGiven: Boolean(env.PORTAL_URL),
    smtpUrl,
    auditPiiDays,
    webhooksAllowPrivate: env.PORTAL_WEBHOOKS_ALLOW_PRIVATE === '1',
    outboxStuckMs: outboxStuckMinutes * 60_000,
    metricsPort,
    filesDir: env.FILES_DIR || './data/files',
    databasePoolMax,
    filesS3: s3StoreVar(env, problems),
    oidcProviders,
    filesMaxBytes,
    filesUrlTtlSeconds,
    filesQuarantineDays,
    smtpFrom: env.SMTP_FROM || `Portal <no-reply@${mailDomainOf(portalUrl)}>`,
    ...overrides,
  });
}
