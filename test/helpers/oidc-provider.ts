// A real OpenID provider for tests: panva's certified oidc-provider, in-process on
// http://127.0.0.1:<free port>, with the authorization code flow, PKCE required (S256), the
// scopes `openid email profile` and the claims sub, email, email_verified and name.
//
// There is no login page. The test says who signs in at the next authorization request
// (`signInNext(account)`), or that the user cancels (`signInNext(null)` → the provider redirects
// back with error=access_denied); the interaction endpoint (interactions.url → /interaction/<uid>,
// served by this file's own handler on the same server) then finishes login and consent in one
// step on an ordinary GET, so plain `fetch(url, { redirect: 'manual' })` hops and a real browser
// both reach the redirect_uri through ordinary 303 redirects:
//   /auth?… → /interaction/<uid> → /auth/<uid> → <redirect_uri>?code=…&state=…&iss=…
//
// The provider keeps no single sign-on between authorization requests: its session cookie is
// dropped from every request to /auth and /auth/<uid>, so every sign-in consumes one
// `signInNext` (in the order they were queued), whoever signed in before in that browser. A
// sign-in nobody queued stops at the provider with a 409 page saying so.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type Configuration, type JWK } from 'oidc-provider';

export interface OidcTestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** How the client authenticates at the token endpoint; default client_secret_basic (the OpenID default). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcTestAccount {
  sub: string;
  email: string;
  /** Default true. */
  emailVerified?: boolean;
  name?: string;
}

export interface OidcTestProvider {
  /** The issuer identifier, e.g. `http://127.0.0.1:41234` (no trailing slash); discovery is at `${issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** Who signs in at the next authorization request; `null`: the user cancels (error=access_denied). Calls queue up in order. */
  signInNext(account: OidcTestAccount | null): void;
  /** Stops the server and destroys its sockets. */
  close(): Promise<void>;
}

export interface StartOidcProviderOptions {
  clients: OidcTestClient[];
}

const INTERACTION_PATH = '/interaction/';
const SESSION_COOKIE = /^_session(\.legacy)?(\.sig)?$/;

let signingKey: JWK | undefined;

// One RSA key per test process (RS256 is the ID token algorithm every client accepts by default);
// generating it takes tens of milliseconds, the providers of one process can share it.
function rsaSigningKey(): JWK {
  signingKey ??= {
    ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
    kid: `test-${randomBytes(6).toString('hex')}`,
    use: 'sig',
    alg: 'RS256',
  };
  return signingKey;
}

interface Stored {
  payload: AdapterPayload;
  expiresAt: number;
}

// The provider's storage for this instance only (oidc-provider's own development adapter is
// shared by the whole process and warns on start).
function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, Stored>();
  const index = new Map<string, string>();
  const byGrant = new Map<string, Set<string>>();
  const live = (key: string | undefined): AdapterPayload | undefined => {
    if (key === undefined) return undefined;
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return (model) => ({
    async upsert(id, payload, expiresIn) {
      const key = `${model}:${id}`;
      entries.set(key, { payload, expiresAt: Date.now() + expiresIn * 1000 });
      if (model === 'Session' && payload.uid) index.set(`uid:${payload.uid}`, key);
      if (payload.userCode) index.set(`userCode:${payload.userCode}`, key);
      if (payload.grantId) {
        const keys = byGrant.get(payload.grantId) ?? new Set<string>();
        keys.add(key);
        byGrant.set(payload.grantId, keys);
      }
    },
    async find(id) {
      return live(`${model}:${id}`);
    },
    async findByUid(uid) {
      return live(index.get(`uid:${uid}`));
    },
    async findByUserCode(userCode) {
      return live(index.get(`userCode:${userCode}`));
    },
    async consume(id) {
      const payload = live(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
      byGrant.delete(grantId);
    },
  });
}

// The authorization endpoint never sees the provider's session cookie: every authorization
// request asks who signs in, and a login as someone else never meets an older session (which
// oidc-provider would end through a JavaScript-submitted logout form first).
function forgetSingleSignOn(req: IncomingMessage): void {
  const header = req.headers.cookie;
  if (header === undefined) return;
  req.headers.cookie = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !SESSION_COOKIE.test(part.split('=', 1)[0] ?? ''))
    .join('; ');
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}

export async function startOidcProvider(options: StartOidcProviderOptions): Promise<OidcTestProvider> {
  const queue: Array<OidcTestAccount | null> = [];
  const accounts = new Map<string, OidcTestAccount>();
  let provider: Provider | undefined;
  let handleProvider: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  async function interaction(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (provider === undefined) throw new Error('provider not started');
    const uid = decodeURIComponent(path.slice(INTERACTION_PATH.length));
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) {
      plain(res, 400, `interaction ${uid} is not the one in progress (${details.uid})`);
      return;
    }
    const { prompt, params } = details;
    if (prompt.name !== 'login') {
      plain(res, 400, `test OpenID provider: unexpected ${prompt.name} prompt (${prompt.reasons.join(', ')})`);
      return;
    }
    if (queue.length === 0) {
      plain(
        res,
        409,
        'test OpenID provider: no sign-in queued; call signInNext(account) or signInNext(null) before the authorization request',
      );
      return;
    }
    const next = queue.shift();
    if (next === null || next === undefined) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user cancelled the sign-in' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    accounts.set(next.sub, next);
    // Consent in the same step: the user grants the client every scope it asked for.
    const grant = new provider.Grant({ accountId: next.sub, clientId: String(params.client_id) });
    if (typeof params.scope === 'string') grant.addOIDCScope(params.scope);
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: next.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith(INTERACTION_PATH)) {
      if (req.method !== 'GET') {
        plain(res, 405, 'the test interaction completes on GET');
        return;
      }
      interaction(req, res, path).catch((error: unknown) => {
        plain(res, 400, `test OpenID provider: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    if (path === '/auth' || path.startsWith('/auth/')) forgetSingleSignOn(req);
    if (handleProvider === undefined) {
      plain(res, 503, 'starting');
      return;
    }
    handleProvider(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    jwks: { keys: [rsaSigningKey()] },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      // lax as in oidc-provider 9: SameSite=None cookies need Secure, which plain http cannot give.
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
    })),
    responseTypes: ['code'],
    pkce: { methods: ['S256'], required: () => true },
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Like Google: the ID token itself carries the scope's claims (email, email_verified, name),
    // not only the userinfo endpoint.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          ...(account.name === undefined ? {} : { name: account.name }),
        }),
      };
    },
    interactions: { url: (_ctx, pending) => `${INTERACTION_PATH}${pending.uid}` },
    features: { devInteractions: { enabled: false } },
    clientBasedCORS: () => false,
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    async renderError(ctx, out) {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = Object.entries(out)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join('\n');
    },
  };
  try {
    provider = new Provider(issuer, configuration);
  } catch (error) {
    server.closeAllConnections();
    server.close();
    throw error;
  }
  handleProvider = provider.callback();

  let closing: Promise<void> | undefined;
  return {
    issuer,
    signInNext(account) {
      queue.push(account);
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Cookies by name and path, as a browser keeps them for one host. */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response): void {
    this.storeLines(response.headers.getSetCookie());
  }

  /** Set-Cookie header values (an injected response's, say). */
  storeLines(lines: readonly string[]): void {
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = val;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
      }
      const key = `${path} ${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.#cookies.values()]
      .filter(({ path }) => url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`))
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
  }
}

/** Follows the provider's redirects until one leaves for the redirect_uri; returns that URL. */
export async function followToCallback(start: URL, redirectUri: string, jar = new CookieJar()): Promise<URL> {
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(`${url.pathname} answered ${response.status}: ${await response.text()}`);
    }
    url = new URL(location, url);
    if (url.href.startsWith(`${redirectUri}?`)) return url;
  }
  throw new Error('more than 10 redirects');
}
