// The test OpenID provider (test/helpers/oidc-provider.ts) driven by openid-client v6 exactly as
// a relying party does it: discovery, an authorization URL with PKCE (S256), state and nonce, the
// redirects followed by hand with plain fetch (cookies carried between hops), the callback read
// from the Location header of the last redirect (nothing listens on the redirect_uri), then the
// authorization code grant with the expected state, nonce and PKCE verifier.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import * as client from 'openid-client';
import { CookieJar, type OidcTestProvider, followToCallback, startOidcProvider } from './helpers/oidc-provider.js';

const CLIENT_ID = 'portal';
const CLIENT_SECRET = 'portal-test-secret';
const REDIRECT_URI = 'http://127.0.0.1:9/auth/oidc/callback';

async function provider(t: TestContext): Promise<OidcTestProvider> {
  const op = await startOidcProvider({ clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [REDIRECT_URI] }] });
  t.after(() => op.close());
  return op;
}

function discover(op: OidcTestProvider): Promise<client.Configuration> {
  // allowInsecureRequests: the test issuer is http://127.0.0.1 (openid-client insists on https otherwise).
  return client.discovery(new URL(op.issuer), CLIENT_ID, CLIENT_SECRET, client.ClientSecretBasic(CLIENT_SECRET), {
    execute: [client.allowInsecureRequests],
  });
}

interface Started {
  url: URL;
  state: string;
  nonce: string;
  pkceCodeVerifier: string;
}

async function authorizationRequest(config: client.Configuration): Promise<Started> {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, state, nonce, pkceCodeVerifier };
}

async function signIn(config: client.Configuration, jar?: CookieJar) {
  const started = await authorizationRequest(config);
  const callback = await followToCallback(started.url, REDIRECT_URI, jar);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: started.pkceCodeVerifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  assert.ok(claims, 'an ID token came back');
  return claims;
}

test('the queued account signs in: its sub, email, email_verified and name come back in the ID token (code flow, PKCE S256, state, nonce)', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  assert.equal(config.serverMetadata().issuer, op.issuer);
  assert.deepEqual(config.serverMetadata().code_challenge_methods_supported, ['S256']);

  op.signInNext({ sub: 'google-oauth2|1001', email: 'ada@example.com', name: 'Ada Lovelace' });
  const claims = await signIn(config);

  assert.equal(claims.iss, op.issuer);
  assert.equal(claims.aud, CLIENT_ID);
  assert.equal(claims.sub, 'google-oauth2|1001');
  assert.equal(claims.email, 'ada@example.com');
  assert.equal(claims.email_verified, true);
  assert.equal(claims.name, 'Ada Lovelace');
});

test('openid-client refuses a callback whose state is not the one the relying party sent', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  op.signInNext({ sub: '1002', email: 'grace@example.com' });
  const started = await authorizationRequest(config);
  const callback = await followToCallback(started.url, REDIRECT_URI);
  assert.equal(callback.searchParams.get('state'), started.state);

  await assert.rejects(
    client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.pkceCodeVerifier,
      expectedState: client.randomState(),
      expectedNonce: started.nonce,
    }),
    (error: unknown) => {
      assert.ok(error instanceof client.ClientError, String(error));
      assert.equal(error.code, 'OAUTH_INVALID_RESPONSE');
      assert.ok(error.cause instanceof Error);
      assert.match(error.cause.message, /"state"/);
      return true;
    },
  );
});

test('a cancelled sign-in comes back to the redirect_uri with error=access_denied and the state', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  op.signInNext(null);
  const started = await authorizationRequest(config);
  const callback = await followToCallback(started.url, REDIRECT_URI);

  assert.equal(callback.searchParams.get('error'), 'access_denied');
  assert.equal(callback.searchParams.get('state'), started.state);
  assert.equal(callback.searchParams.get('code'), null);
  await assert.rejects(
    client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.pkceCodeVerifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    }),
    (error: unknown) => {
      assert.ok(error instanceof client.AuthorizationResponseError, String(error));
      assert.equal(error.error, 'access_denied');
      return true;
    },
  );
});

test('every authorization request asks who signs in: no single sign-on carries over in the same cookie jar', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  const jar = new CookieJar();
  op.signInNext({ sub: '2001', email: 'first@example.com' });
  op.signInNext({ sub: '2002', email: 'second@example.com', emailVerified: false });

  const first = await signIn(config, jar);
  const second = await signIn(config, jar);

  assert.deepEqual([first.sub, first.email, first.email_verified], ['2001', 'first@example.com', true]);
  assert.deepEqual([second.sub, second.email, second.email_verified], ['2002', 'second@example.com', false]);
});

test('the provider requires PKCE: an authorization request without code_challenge is refused with invalid_request', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  op.signInNext({ sub: '3001', email: 'nopkce@example.com' });
  const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid email profile', state: 's', nonce: 'n' });
  const callback = await followToCallback(url, REDIRECT_URI);

  assert.equal(callback.searchParams.get('error'), 'invalid_request');
  assert.match(callback.searchParams.get('error_description') ?? '', /PKCE/);
});

test('a sign-in nobody queued stops at the provider with 409 instead of signing someone in', async (t) => {
  const op = await provider(t);
  const config = await discover(op);
  const { url } = await authorizationRequest(config);

  await assert.rejects(followToCallback(url, REDIRECT_URI), /\/interaction\/\S+ answered 409: .*no sign-in queued/);
});

function sockets(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap' || resource === 'TCPSocketWrap').length;
}

/** Waits (at most 1 s) until no server or socket handle is left: closed sockets go on the next turns of the event loop. */
async function socketsDrained(): Promise<number> {
  for (let waited = 0; sockets() > 0 && waited < 1000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  return sockets();
}

test('close() stops the server and leaves no server or socket handle open', async (t) => {
  assert.equal(
    await socketsDrained(),
    0,
    `the providers of the tests before closed everything: ${process.getActiveResourcesInfo().join(', ')}`,
  );
  const op = await startOidcProvider({ clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [REDIRECT_URI] }] });
  t.after(() => op.close());
  op.signInNext({ sub: '4001', email: 'close@example.com' });
  await signIn(await discover(op));
  assert.ok(sockets() > 0, 'the sign-in opened the server and sockets');

  await op.close();
  await op.close(); // a second close is harmless

  assert.equal(await socketsDrained(), 0, `handles left: ${process.getActiveResourcesInfo().join(', ')}`);
  await assert.rejects(fetch(`${op.issuer}/.well-known/openid-configuration`));
});
