// Rule (issue 31, point 5): TLS to PostgreSQL is the URL's `sslmode`, as docs/operations.md says. The test turns
// SSL on in the test cluster with a self-signed certificate it makes (ALTER SYSTEM and a reload: plain connections
// keep working meanwhile), and turns it off again after.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chownSync, copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { heldWithin } from './helpers/eventually.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { serve, stop } from './helpers/server.js';

const run = promisify(execFile);
const adminUrl = process.env.PORTAL_TEST_POSTGRES_URL;
const skip = !BACKENDS.includes('postgres')
  ? 'no PostgreSQL'
  : process.getuid?.() !== 0
    ? 'handing the key to the cluster’s user takes root'
    : false;

/** A self-signed certificate for 127.0.0.1 and localhost, and its key, in `dir`. */
async function selfSigned(dir: string, name: string) {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  // biome-ignore format: one flag and its value a pair
  await run('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
  ]);
  return { cert, key };
}

/** Runs statements as the test's superuser, on a connection of their own; the last one's rows. */
async function asAdmin(...statements: [string, unknown[]?][]) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    let rows: Record<string, unknown>[] = [];
    for (const [text, values] of statements) rows = (await admin.query(text, values)).rows;
    return rows;
  } finally {
    await admin.end();
  }
}

/**
 * SSL on in the test cluster, with a certificate made here (copied into the data directory, owned by the cluster's
 * user, and left there: a cluster restarted before the reset below still finds its files), off again after.
 * The certificate's path, to name as the root the client trusts.
 */
async function sslOn(t: TestContext): Promise<string> {
  const dataDirectory = String((await asAdmin(['show data_directory']))[0].data_directory);
  const made = mkdtempSync(join(tmpdir(), 'portal-tls-'));
  t.after(() => rmSync(made, { recursive: true, force: true }));
  const { cert, key } = await selfSigned(made, 'server');
  const { uid, gid } = statSync(dataDirectory);
  const installed = { cert: join(dataDirectory, 'portal-test-tls.crt'), key: join(dataDirectory, 'portal-test-tls.key') };
  for (const [from, to] of [
    [cert, installed.cert],
    [key, installed.key],
  ]) {
    copyFileSync(from, to);
    chownSync(to, uid, gid);
  }
  await asAdmin(
    [`alter system set ssl_cert_file = '${installed.cert}'`],
    [`alter system set ssl_key_file = '${installed.key}'`],
    ['alter system set ssl = on'],
    ['select pg_reload_conf()'],
  );
  t.after(() =>
    asAdmin(
      ['alter system reset ssl'],
      ['alter system reset ssl_cert_file'],
      ['alter system reset ssl_key_file'],
      ['select pg_reload_conf()'],
    ),
  );
  await heldWithin(10_000, 'the cluster answers TLS', async () => {
    const client = new pg.Client({ connectionString: adminUrl, ssl: { rejectUnauthorized: false } });
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  });
  return cert;
}

/** The database URL with these parameters and an application name to find its connections by. */
async function urlWith(t: TestContext, parameters: Record<string, string>) {
  const url = new URL(await freshDatabaseUrl(t, 'postgres'));
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  const application = `tls_${Math.random().toString(36).slice(2, 10)}`;
  url.searchParams.set('application_name', application);
  return { url: url.toString(), application };
}

/** Whether each of the application's connections is encrypted (one entry a connection). */
async function encryption(application: string): Promise<boolean[]> {
  const rows = await asAdmin([
    'select s.ssl from pg_stat_ssl s join pg_stat_activity a using (pid) where a.application_name = $1',
    [application],
  ]);
  return rows.map((r) => r.ssl === true);
}

/** `portal migrate` on the URL: its exit code and what it printed. */
async function migrate(databaseUrl: string) {
  try {
    await run(process.execPath, ['bin/portal.js', 'migrate'], { env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

test('PostgreSQL over TLS: sslmode in DATABASE_URL encrypts and verifies, as documented', { skip, timeout: 120_000 }, async (t) => {
  const cert = await sslOn(t);

  await t.test('verify-full with the server certificate’s root: the server runs, every connection encrypted', async (st) => {
    const { url, application } = await urlWith(st, { sslmode: 'verify-full', sslrootcert: cert });
    const server = await serve({ DATABASE_URL: url });
    st.after(() => stop(server.child));
    const ready = await fetch(`${server.base}/readyz`);
    assert.equal(ready.status, 200);
    const connections = await encryption(application);
    assert.ok(connections.length >= 1, 'the server holds a connection');
    assert.deepEqual(
      connections,
      connections.map(() => true),
    );
  });

  await t.test('verify-full with another root: refused, naming the certificate', async (st) => {
    const other = mkdtempSync(join(tmpdir(), 'portal-tls-other-'));
    st.after(() => rmSync(other, { recursive: true, force: true }));
    const { url } = await urlWith(st, { sslmode: 'verify-full', sslrootcert: (await selfSigned(other, 'other')).cert });
    const { code, stderr } = await migrate(url);
    assert.notEqual(code, 0);
    assert.match(stderr, /certificate/i);
  });

  await t.test('require: node-postgres verifies as verify-full does (a self-signed certificate refused)', async (st) => {
    const { url } = await urlWith(st, { sslmode: 'require' });
    const { code, stderr } = await migrate(url);
    assert.notEqual(code, 0);
    assert.match(stderr, /self-signed certificate/i);
  });

  await t.test('require with uselibpqcompat=true: libpq’s meaning, encrypted and not verified', async (st) => {
    const { url } = await urlWith(st, { sslmode: 'require', uselibpqcompat: 'true' });
    assert.deepEqual(await migrate(url), { code: 0, stderr: '' });
  });

  await t.test('disable: plain, while the cluster offers TLS', async (st) => {
    const { url, application } = await urlWith(st, { sslmode: 'disable' });
    const server = await serve({ DATABASE_URL: url });
    st.after(() => stop(server.child));
    assert.equal((await fetch(`${server.base}/readyz`)).status, 200);
    const connections = await encryption(application);
    assert.ok(connections.length >= 1, 'the server holds a connection');
    assert.deepEqual(
      connections,
      connections.map(() => false),
    );
  });
});
