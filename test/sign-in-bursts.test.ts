// Rule (issue 42, point 1): a sign-in guess (password, TOTP or recovery code, a password change's current password)
// takes its token atomically before it is evaluated, so a burst of 40 concurrent requests evaluates at most the tokens
// left, and the right secret among them does not get in once the bucket is empty (a right guess gives its token back).
// Rule (issue 42, point 4): single-use things are used once however many requests send them at once: a TOTP code, a
// recovery code and an invite (with four different passwords: one wins, and its password is the one in force).
// Real concurrent requests against a running `portal serve`, on both backends, with the in-process limit store and
// with Redis.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { base32Decode, hotp, totpStep } from '../src/lib/totp.js';
import { TEST_ADMIN_TOKEN } from './helpers/factories.js';
import { BACKENDS, type Backend, freshDatabaseUrl } from './helpers/harness.js';
import { redisPrefixFor, testRedisUrl } from './helpers/redis.js';
import { serve, stop } from './helpers/server.js';

const PASSWORD = 'correct horse battery';
const WRONG = 'wrong but long enough';
const BURST = 40;
/** The guess buckets' refill: one token every 90 s (sign-in.service.ts). */
const REFILL_MS = 90_000;
const RATE_LIMITED = '{"code":"rate_limit_exceeded","message":"Too many requests; retry after the Retry-After delay.","data":null}';

interface Answer {
  status: number;
  text: string;
  retryAfter: string | null;
  /** The session cookie set by the answer, if any. */
  cookie: string | undefined;
}

/** One request to a running server, on its own connection, bounded by 60 s. */
async function call(base: string, method: string, path: string, options: { body?: object; cookie?: string; headers?: object } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(method === 'GET' ? {} : { 'x-portal-request': '1' }),
      ...(options.body ? { 'content-type': 'application/json' } : {}),
      ...(options.cookie ? { cookie: `portal_session=${options.cookie}` } : {}),
      ...options.headers,
    },
    body: options.body ? JSON.stringify(options.body) : undefined,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  const set = res.headers.get('set-cookie');
  return {
    status: res.status,
    text,
    retryAfter: res.headers.get('retry-after'),
    cookie: set ? /^portal_session=([^;]*)/.exec(set)?.[1] : undefined,
  };
}

const codeAt = (secret: string, step: number) => hotp(base32Decode(secret), step);

/** A server on a fresh database of `backend`, limit state in its memory or in Redis; its workspace and a company. */
async function world(t: TestContext, backend: Backend, store: 'memory' | 'redis') {
  const server = await serve({
    DATABASE_URL: await freshDatabaseUrl(t, backend, { sqliteFile: true }),
    PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Every request comes from 127.0.0.1: only the per-account buckets are under test.
    AUTH_FAILURES_PER_MINUTE: '100000',
    ...(store === 'redis' ? { REDIS_URL: testRedisUrl ?? '', REDIS_KEY_PREFIX: redisPrefixFor(t) } : {}),
  });
  t.after(() => stop(server.child));
  const { base } = server;
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const created = await call(base, 'POST', '/admin/workspaces', { body: { name: 'Bursts' }, headers: admin });
  assert.equal(created.status, 201, created.text);
  const { workspaceId, apiKey } = JSON.parse(created.text);
  const company = await call(base, 'POST', '/v1/companies', { body: { name: 'Acme' }, headers: { 'x-api-key': apiKey } });
  const companyId = JSON.parse(company.text).id;
  const portal = (method: string, path: string, body?: object, cookie?: string) =>
    call(base, method, `/portal/${workspaceId}/api${path}`, { body, cookie });
  /** A client invited: the token of its invite link. */
  const invite = async (email: string) => {
    const res = await call(base, 'POST', '/v1/clients?sendInvite=true', {
      body: { email, givenName: 'G', familyName: 'H', companyId },
      headers: { 'x-api-key': apiKey },
    });
    assert.equal(res.status, 200, res.text);
    return new URL(JSON.parse(res.text).inviteUrl).hash.slice(1);
  };
  /** A client who accepted its invite with PASSWORD: its session cookie. */
  const client = async (email: string) => {
    const accepted = await portal('POST', '/invites/accept', { token: await invite(email), password: PASSWORD });
    assert.equal(accepted.status, 200, accepted.text);
    return accepted.cookie as string;
  };
  /** A client with TOTP on: its secret, recovery codes, and the step its last code was used at. */
  const totpClient = async (email: string) => {
    const cookie = await client(email);
    const { secret } = JSON.parse((await portal('POST', '/mfa/totp', undefined, cookie)).text);
    const step = totpStep(Date.now());
    const confirmed = await portal('POST', '/mfa/totp/confirm', { code: codeAt(secret, step) }, cookie);
    assert.equal(confirmed.status, 200, confirmed.text);
    return { secret, recoveryCodes: JSON.parse(confirmed.text).recoveryCodes as string[], usedStep: step };
  };
  /** A half session (the first factor passed): its cookie. */
  const half = async (email: string) => {
    const first = await portal('POST', '/sign-in/password', { email, password: PASSWORD });
    assert.deepEqual([first.status, JSON.parse(first.text).stage], [200, 'mfaRequired']);
    return first.cookie as string;
  };
  return { portal, invite, client, totpClient, half };
}

/**
 * The answers of a burst, by kind: evaluated and wrong (the right code too when its step was used already), evaluated
 * and right, refused before evaluation (429).
 */
function tally(answers: Answer[], wrongStatus: number, rightStatus: number) {
  const wrong = answers.filter((a) => a.status === wrongStatus).length;
  const right = answers.filter((a) => a.status === rightStatus).length;
  const refused = answers.filter((a) => a.status === 429);
  for (const a of refused) assert.deepEqual([a.text, a.retryAfter], [RATE_LIMITED, '90']);
  assert.equal(
    wrong + right + refused.length,
    answers.length,
    `only ${wrongStatus}, ${rightStatus} and 429: ${answers.map((a) => a.status)}`,
  );
  return { wrong, right, refused: refused.length };
}

/**
 * Nine wrong guesses one after another, then a burst of 40 with the right one among them (last), then wrong guesses
 * until 429, then a second burst of 40 with the right one first. A bucket of 10 refilling one every 90 s lets at most
 * 10 + (elapsed / 90 s) wrong guesses be evaluated in all; a right one evaluated gives its token back.
 */
async function guessBursts(guess: (right: boolean) => Promise<Answer>, statuses: { wrong: number; right: number }): Promise<void> {
  const started = Date.now();
  const tokensBy = () => 10 + Math.floor((Date.now() - started) / REFILL_MS);
  for (let i = 0; i < 9; i++) assert.equal((await guess(false)).status, statuses.wrong, `wrong guess ${i + 1}`);
  let wrong = 9;
  const first = tally(await Promise.all(Array.from({ length: BURST }, (_, i) => guess(i === BURST - 1))), statuses.wrong, statuses.right);
  wrong += first.wrong;
  assert.ok(wrong <= tokensBy(), `first burst: ${first.wrong} wrong guesses evaluated with ${tokensBy() - 9} token(s) left`);
  assert.ok(first.refused >= BURST - 2, `first burst: ${first.refused} refused`);
  // Drained: wrong guesses until one is refused (at most three: one token left, perhaps one given back, one refilled).
  for (let i = 0; i < 3; i++) {
    const answer = await guess(false);
    if (answer.status === 429) break;
    assert.equal(answer.status, statuses.wrong);
    wrong += 1;
  }
  const second = tally(await Promise.all(Array.from({ length: BURST }, (_, i) => guess(i === 0))), statuses.wrong, statuses.right);
  wrong += second.wrong;
  const left = tokensBy() - (wrong - second.wrong);
  assert.ok(wrong <= tokensBy(), `in all: ${wrong} wrong guesses evaluated with ${tokensBy()} token(s) ever`);
  assert.ok(second.wrong + second.right <= Math.max(0, left), `second burst: ${second.wrong + second.right} evaluated with ${left} left`);
}

const STORES = testRedisUrl ? (['memory', 'redis'] as const) : (['memory'] as const);
/**
 * Each backend and each limit store at least once ([sqlite, memory] and [postgres, redis] when all are here): the
 * store takes the tokens, the backend keeps what is used once (the TOTP step, codes, invites), and neither depends on
 * the other, so their cross product would run the same rules twice over (about a minute of CI).
 */
const SETUPS = Array.from({ length: Math.max(BACKENDS.length, STORES.length) }, (_, i) => ({
  backend: BACKENDS[i % BACKENDS.length],
  store: STORES[i % STORES.length],
}));

for (const { backend, store } of SETUPS) {
  describe(`sign-in bursts against a running server [${backend}, ${store}]`, () => {
    test('40 concurrent passwords, TOTP codes and password changes evaluate at most the tokens left', { timeout: 300_000 }, async (t) => {
      const w = await world(t, backend, store);
      await t.test('the password step', async () => {
        await w.client('grace@acme.test');
        await guessBursts(
          (right) => w.portal('POST', '/sign-in/password', { email: 'grace@acme.test', password: right ? PASSWORD : WRONG }),
          { wrong: 401, right: 200 },
        );
      });
      await t.test('the TOTP step', async () => {
        const { secret, usedStep } = await w.totpClient('ada@acme.test');
        // A half session per guess (a right code ends its own): the bucket is the person's, across half sessions.
        const halves: string[] = [];
        while (halves.length < 9 + BURST + 3 + BURST)
          halves.push(...(await Promise.all(Array.from({ length: 4 }, () => w.half('ada@acme.test')))));
        const step = () => Math.max(usedStep + 1, totpStep(Date.now()));
        await guessBursts(
          (right) => w.portal('POST', '/sign-in/totp', { code: codeAt(secret, right ? step() : step() + 5) }, halves.pop()),
          { wrong: 401, right: 200 },
        );
      });
      await t.test('a password change', async () => {
        const cookie = await w.client('alan@acme.test');
        await guessBursts(
          (right) =>
            w.portal(
              'PUT',
              '/password',
              { currentPassword: right ? PASSWORD : WRONG, newPassword: right ? PASSWORD : 'never set this one' },
              cookie,
            ),
          { wrong: 400, right: 204 },
        );
      });
    });

    test('a TOTP code, a recovery code and an invite sent four times at once are used once', { timeout: 300_000 }, async (t) => {
      const w = await world(t, backend, store);
      const { secret, recoveryCodes, usedStep } = await w.totpClient('grace@acme.test');
      const opened = (answers: Answer[]) => answers.filter((a) => a.status === 200 && JSON.parse(a.text).stage === 'active');
      await t.test('one TOTP code', async () => {
        const halves = [];
        for (let i = 0; i < 4; i++) halves.push(await w.half('grace@acme.test'));
        const code = codeAt(secret, Math.max(usedStep + 1, totpStep(Date.now())));
        const answers = await Promise.all(halves.map((cookie) => w.portal('POST', '/sign-in/totp', { code }, cookie)));
        assert.equal(opened(answers).length, 1, `statuses ${answers.map((a) => a.status)}`);
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401, 401]);
      });
      await t.test('one recovery code', async () => {
        const halves = [];
        for (let i = 0; i < 4; i++) halves.push(await w.half('grace@acme.test'));
        const answers = await Promise.all(halves.map((cookie) => w.portal('POST', '/sign-in/totp', { code: recoveryCodes[0] }, cookie)));
        assert.equal(opened(answers).length, 1, `statuses ${answers.map((a) => a.status)}`);
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401, 401]);
      });
      await t.test('one half session with two right codes at once opens one session', async () => {
        const cookie = await w.half('grace@acme.test');
        const answers = await Promise.all(
          [recoveryCodes[1], recoveryCodes[2]].map((code) => w.portal('POST', '/sign-in/totp', { code }, cookie)),
        );
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401]);
      });
      await t.test('one invite, with four different passwords', async () => {
        const token = await w.invite('ada@acme.test');
        const passwords = [1, 2, 3, 4].map((i) => `password number ${i} long`);
        const answers = await Promise.all(passwords.map((password) => w.portal('POST', '/invites/accept', { token, password })));
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401, 401], answers.map((a) => a.text).join('\n'));
        const winner = passwords[answers.findIndex((a) => a.status === 200)];
        for (const password of passwords) {
          const signIn = await w.portal('POST', '/sign-in/password', { email: 'ada@acme.test', password });
          assert.equal(signIn.status, password === winner ? 200 : 401, 'the winner’s password is the one in force');
        }
      });
    });
  });
}
