// Rule (issue 21, part 8): the README stays short (at most 250 lines) and the rest of the documentation is in
// docs/, linked from it; every relative link of README.md, docs/*.md and bench/README.md reaches a file that
// exists, and every `#anchor` into a markdown file names a heading of that file (GitHub's slug), so a section
// moved or renamed later breaks this test instead of a reader's link.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';

const read = (file: string) => readFileSync(file, 'utf8');
const DOCS = readdirSync('docs')
  .filter((f) => f.endsWith('.md'))
  .map((f) => join('docs', f))
  .sort();
const FILES = ['README.md', ...DOCS, 'bench/README.md'];

/** The text without fenced code blocks: a `# comment` in a shell block is no heading, a `[x](y)` in code no link. */
function withoutFences(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .filter((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    })
    .join('\n');
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped (but `-` and `_`), spaces to `-`; repeats get -1, -2… */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of withoutFences(read(file)).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

/** `[text](target)` and `![alt](target)` outside code, with their line. */
function links(file: string): { target: string; line: number }[] {
  const lines = withoutFences(read(file)).split('\n');
  return lines.flatMap((line, i) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
      target: m[1],
      line: i + 1,
    })),
  );
}

test('README.md is at most 250 lines', () => {
  const lines = read('README.md').replace(/\n$/, '').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test('README.md links every file of docs/ and bench/README.md', () => {
  const linked = new Set(links('README.md').map(({ target }) => normalize(target.split('#')[0])));
  assert.ok(DOCS.length >= 4, `docs/ has its files (${DOCS.join(', ')})`);
  for (const file of [...DOCS, 'bench/README.md']) assert.ok(linked.has(file), `README.md links ${file}`);
});

test('every relative link of the documentation reaches a file, and every #anchor a heading of it', () => {
  let checked = 0;
  for (const file of FILES) {
    for (const { target, line } of links(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s):, mailto:
      const [path, anchor] = target.split('#');
      const resolved = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
      const where = `${file}:${line} → ${target}`;
      assert.ok(existsSync(resolved), `${where}: ${resolved} does not exist`);
      if (anchor !== undefined && resolved.endsWith('.md'))
        assert.ok(anchors(resolved).has(anchor), `${where}: ${resolved} has no heading #${anchor}`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `the links were found (${checked})`);
});

test('the anchor rule reads headings as GitHub does', () => {
  assert.ok(anchors('README.md').has('the-portal-command'));
  assert.ok(anchors('README.md').has('use-it-as-a-local-sandbox-for-your-app'));
  assert.ok(!anchors('README.md').has('open-http1270018080console-and-sign-in-with-that-token'), 'a shell comment is no heading');
});

// Rule (issue 42, point 13): the examples run as written on one database, one after the other: no two of them create
// a client (or anyone) with the same e-mail (the second would be a 409); the invite link the docs describe is the
// form the server makes (src/modules/resources/directory/clients.service.ts); and the docs run the OpenAPI linter through the
// npm script of the dev dependency (@redocly/cli), never a bare `npx redocly` (another package).
test('the examples create distinct e-mails, the invite link is described as made, the linter is run by its script', () => {
  const emails = FILES.flatMap((file) => [...read(file).matchAll(/"email":\s*"([^"]+)"/g)].map((m) => `${m[1]} (${file})`));
  const addresses = emails.map((e) => e.split(' ')[0]);
  assert.ok(emails.length >= 2, `examples found: ${emails.join(', ')}`);
  assert.deepEqual(
    addresses.filter((a, i) => addresses.indexOf(a) !== i),
    [],
    `the same e-mail created twice: ${emails.join(', ')}`,
  );

  const made = /const inviteUrl = `\$\{portalUrl\}\/portal\/\$\{caller\.access\.workspaceId\}\/invite#\$\{invite\.token\}`;/;
  assert.match(read('src/modules/resources/directory/clients.service.ts'), made);
  const api = read('docs/api.md');
  assert.match(api, /`inviteUrl` \(`PORTAL_URL\/portal\/<workspaceId>\/invite#<token>`/);
  assert.doesNotMatch(api, /PORTAL_URL\/invite\//);

  const all = [...FILES, 'redocly.yaml'].map(read).join('\n');
  assert.doesNotMatch(all, /npx redocly|npx @redocly/);
  const pkg = JSON.parse(read('package.json'));
  assert.equal(pkg.scripts['lint:openapi'], 'redocly lint openapi.json');
  assert.match(pkg.devDependencies['@redocly/cli'], /^\^2\./);
  assert.match(api, /npm run lint:openapi/);
});
