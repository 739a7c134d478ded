// Rule (issue 14, part 5): the deployment files stay true to the code: every variable the compose file
// sets is a documented setting, nginx balances the compose file's replicas, and the image runs the
// command, the user and the health check docs/operations.md describes (Run it in production).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SERVE_ARGS } from '../bench/server-setup.js';

const read = (file: string) => readFileSync(file, 'utf8');

test('deploy/compose.yaml sets only documented settings, and nginx balances its two replicas', () => {
  const compose = read('deploy/compose.yaml');
  const envBlock = compose.slice(compose.indexOf('  environment:\n'), compose.indexOf('  depends_on:'));
  const variables = [...envBlock.matchAll(/^ {4}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  assert.deepEqual(variables, [
    'DATABASE_URL',
    'REDIS_URL',
    'FILES_STORE',
    'S3_ENDPOINT',
    'S3_FORCE_PATH_STYLE',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'PORTAL_ADMIN_TOKEN',
    'PORTAL_URL',
    'SMTP_URL',
    'TRUST_PROXY',
    'METRICS_PORT',
    'SHUTDOWN_GRACE_MS',
    'LOG_LEVEL',
  ]);
  const readme = read('README.md');
  const example = read('.env.example');
  for (const name of variables) {
    assert.match(readme, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${name} in the README's Configuration table`);
    assert.match(example, new RegExp(`^${name}=`, 'm'), `${name} in .env.example`);
  }
  const subnet = /subnet: ([\d./]+)/.exec(compose)?.[1];
  assert.match(compose, new RegExp(`TRUST_PROXY: ${subnet}`), 'the replicas trust the compose network, where the proxy is');
  const services = [...compose.matchAll(/^ {2}(portal-[a-z]+):$/gm)].map((m) => m[1]);
  assert.deepEqual(services, ['portal-a', 'portal-b']);
  const upstreams = [...read('deploy/nginx.conf').matchAll(/^\s+server (portal-[a-z]+):8080/gm)].map((m) => m[1]);
  assert.deepEqual(upstreams, services);
});

test('files: both replicas keep content in the compose file’s object store; the image keeps it in its /data volume, owned by its user', () => {
  const compose = read('deploy/compose.yaml');
  const envBlock = compose.slice(compose.indexOf('  environment:\n'), compose.indexOf('  depends_on:'));
  const store = /^ {4}FILES_STORE: s3:\/\/([a-z0-9.-]+)\/\S+$/m.exec(envBlock);
  assert.ok(store, 'the replicas share an S3 bucket, not each its own directory');
  assert.match(envBlock, /^ {4}S3_ENDPOINT: http:\/\/minio:9000$/m);
  assert.match(compose, /^ {2}minio:\n {4}image: minio\/minio:/m, 'a MinIO service');
  assert.match(compose, new RegExp(`mc mb --ignore-existing store/${store[1]}`), 'its bucket created once');
  for (const replica of ['portal-a', 'portal-b']) assert.match(compose, new RegExp(`^ {2}${replica}:\\n {4}<<: \\*portal`, 'm'));
  // Every replica waits for the bucket (portal-b lists its own depends_on, so it must name it too).
  assert.equal([...compose.matchAll(/minio-bucket: \{ condition: service_completed_successfully \}/g)].length, 2);
  assert.match(compose, /^ {2}minio-data:$/m, 'MinIO’s data in a volume');

  const dockerfile = read('Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
  const filesDir = /FILES_DIR=(\S+)/.exec(runtime)?.[1];
  const volume = JSON.parse(/^VOLUME (\[.*\])$/m.exec(runtime)?.[1] ?? '[]') as string[];
  assert.ok(filesDir && volume.some((dir) => filesDir.startsWith(`${dir}/`)), `FILES_DIR (${filesDir}) inside the volume (${volume})`);
  assert.ok(runtime.includes(`\nRUN mkdir -p ${filesDir} && chown -R node:node ${volume[0]}\n`), 'made and owned by the user it runs as');
  assert.ok(runtime.indexOf('chown') < runtime.indexOf('USER node'));
});

test('the Dockerfile: multi-stage, production dependencies by npm ci --omit=dev, non-root, /readyz health check', () => {
  const dockerfile = read('Dockerfile');
  assert.equal([...dockerfile.matchAll(/^FROM /gm)].length, 3);
  assert.match(dockerfile, /^RUN npm pkg delete devDependencies && npm ci --omit=dev /m);
  assert.match(dockerfile, /^USER node$/m);
  assert.match(dockerfile, /^HEALTHCHECK .*\n.*\/readyz/m);
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
  assert.deepEqual(cmd.slice(-2), ['bin/portal.js', 'serve']);
  assert.ok(existsSync(cmd.at(-2) ?? ''));
  // The runtime stage copies exactly what runs: dependencies, the build, the entry point.
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
  assert.deepEqual(
    [...runtime.matchAll(/^COPY (.+)$/gm)].map((m) => m[1]),
    ['--from=deps /app/node_modules ./node_modules', '--from=build /app/dist ./dist', 'package.json ./', 'bin ./bin'],
  );
  // npm start's own flags are the image's, and the bench's (it measures the server as npm start runs it).
  const start = JSON.parse(read('package.json')).scripts.start as string;
  assert.equal(start, `node ${cmd.slice(1).join(' ')}`);
  assert.equal(start, `node ${SERVE_ARGS.join(' ')}`);
});

test('deploy/grafana-dashboard.json charts every portal_ metric the server exports', () => {
  const exported = [...read('src/plugins/metrics.ts').matchAll(/(?:name: |depth\()'(portal_[a-z_]+)'/g)].map((m) => m[1]);
  assert.ok(exported.length >= 8, `found the metrics: ${exported.join(', ')}`);
  const dashboard = JSON.parse(read('deploy/grafana-dashboard.json')) as { panels: { targets: { expr: string }[] }[] };
  const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
  for (const name of exported)
    assert.ok(
      exprs.some((expr) => expr.includes(name)),
      `${name} has a panel`,
    );
});

// Rule (issue 42, point 13): the deployment files as a newcomer runs them: compose catches every e-mail in a mail
// catcher (its inbox shows the sign-in, reset and invite links), its bucket step leaves the MinIO credentials to the
// container's shell ($$: compose would interpolate them on the host), nginx lets through every upload the replicas
// take (FILES_MAX_BYTES), and the image's links are its PORTAL_URL's, never http://0.0.0.0:….
test('compose: a mail catcher the replicas send to; the bucket step escapes its shell variables; nginx takes FILES_MAX_BYTES uploads', () => {
  const compose = read('deploy/compose.yaml');
  const envBlock = compose.slice(compose.indexOf('  environment:\n'), compose.indexOf('  depends_on:'));
  assert.match(envBlock, /^ {4}SMTP_URL: \$\{SMTP_URL:-smtp:\/\/mailpit:1025\}$/m);
  assert.match(compose, /^ {2}mailpit:\n {4}image: axllent\/mailpit:v[\d.]+\n/m, 'a Mailpit service');
  assert.match(compose, /^ {4}ports: \["127\.0\.0\.1:8025:8025"\]$/m, 'its inbox on this machine only (it holds sign-in links)');
  assert.equal([...compose.matchAll(/mailpit: \{ condition: service_started \}/g)].length, 2, 'both replicas wait for it');
  const bucket = compose.slice(compose.indexOf('\n  minio-bucket:\n'), compose.indexOf('\n  mailpit:\n'));
  const command = bucket.slice(bucket.indexOf('command:'));
  assert.match(command, /mc alias set store http:\/\/minio:9000 "\$\$MINIO_ROOT_USER" "\$\$MINIO_ROOT_PASSWORD"/);
  assert.doesNotMatch(command.replaceAll('$$', ''), /\$/, 'no single $ left for compose to interpolate on the host');

  const nginx = read('deploy/nginx.conf');
  const size = /^\s*client_max_body_size (\d+)m;/m.exec(nginx)?.[1];
  const filesMax = Number(/\| `FILES_MAX_BYTES` \| `(\d+)` \|/.exec(read('README.md'))?.[1]);
  assert.equal(filesMax, 104_857_600);
  assert.ok(Number(size) * 1024 * 1024 > filesMax, `nginx's client_max_body_size (${size}m) above FILES_MAX_BYTES (${filesMax})`);
});

test('the image sets PORTAL_URL beside HOST=0.0.0.0, and its HEALTHCHECK comment says what /readyz checks', () => {
  const dockerfile = read('Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
  assert.match(runtime, /^ {4}HOST=0\.0\.0\.0 \\\n {4}PORT=8080 \\\n {4}PORTAL_URL=http:\/\/127\.0\.0\.1:8080 \\$/m);
  const comment = /^# (.*)\nHEALTHCHECK /m.exec(runtime)?.[1] ?? '';
  assert.equal(
    comment,
    'Healthy = ready: the database answers and the process is not draining (GET /readyz; Redis and the outboxes are metrics).',
  );
  assert.match(read('src/modules/surfaces/health/health.routes.ts'), /summary: 'Readiness: the database answers'/);
});
