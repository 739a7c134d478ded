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
  /** Trust X-Forwarded-For from a balancer in front (for the client ip in audit entries and limits). */
  readonly trustProxy: boolean;
  /** Public address of the portal, the base of invite links. */
  readonly portalUrl: string;
  /** On SIGTERM: how long to keep serving (readiness failing, connections closing) before closing. */
  readonly shutdownGraceMs: number;
}

export class ConfigError extends Error {}

const DEFAULTS = {
  PORT: '8080',
  HOST: '127.0.0.1',
  DATABASE_URL: 'sqlite:./data/portal.db',
  LOG_LEVEL: 'info',
};

function intVar(env: Record<string, string | undefined>, name: string, fallback: string, problems: string[]): number {
  const raw = env[name] ?? fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) problems.push(`${name} must be a non-negative integer (got "${raw}")`);
  return value;
}

/** Reads every variable at once and reports all problems together. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const port = intVar(env, 'PORT', DEFAULTS.PORT, problems);
  const databaseUrl = env.DATABASE_URL || DEFAULTS.DATABASE_URL;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
  }
  const shutdownGraceMs = intVar(env, 'SHUTDOWN_GRACE_MS', '1000', problems);
  const logLevel = env.LOG_LEVEL || DEFAULTS.LOG_LEVEL;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`);
  }
  const adminToken = env.PORTAL_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) problems.push('PORTAL_ADMIN_TOKEN must be at least 16 characters');
  if (env.PORTAL_URL && !/^https?:\/\/[^\s]+$/.test(env.PORTAL_URL)) problems.push(`PORTAL_URL must be an http(s) URL (got "${env.PORTAL_URL}")`);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return Object.freeze({
    port,
    host: env.HOST || DEFAULTS.HOST,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    adminToken,
    logLevel,
    bodyLimit: 1024 * 1024,
    trustProxy: env.TRUST_PROXY === 'true',
    shutdownGraceMs,
    portalUrl: (env.PORTAL_URL || `http://${env.HOST || DEFAULTS.HOST}:${port}`).replace(/\/+$/, ''),
    ...overrides,
  });
}
