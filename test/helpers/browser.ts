import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import { type Browser, type Page, chromium } from 'playwright-core';

/** Debian's chromium (installed by .ci/run); PORTAL_TEST_CHROMIUM names another. */
export const CHROMIUM = process.env.PORTAL_TEST_CHROMIUM || '/usr/bin/chromium';

/** Screenshots of the browser tests: git-ignored. */
export const ARTIFACTS = join('test', 'artifacts');

/** Every wait of a browser test is bounded by this (ms) unless it says otherwise. */
export const WAIT_MS = 20_000;

const BUILT = [join('dist', 'console', 'index.html'), join('dist', 'portal', 'index.html')];

/**
 * Builds the front ends (the console, the portal's pages) and the server when one is missing, as on a fresh clone;
 * at most 2 minutes.
 */
export function ensureBuilt() {
  if (BUILT.every((file) => existsSync(file))) return;
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit', timeout: 120_000 });
  assert.equal(build.status, 0, 'node scripts/build.mjs failed');
  for (const file of BUILT) assert.ok(existsSync(file), `the build wrote ${file}`);
}

/** Headless chromium; closed by the caller. */
export async function launchBrowser(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set PORTAL_TEST_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    // As root (CI containers) chromium refuses to start with its sandbox.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
}

/**
 * Writes `test/artifacts/console-<name>.png`, the whole page; and the viewport to `alsoTo` (a committed
 * picture, the README's) only when it is missing or UPDATE_SCREENSHOTS=1, so test runs leave the tree clean.
 */
export async function screenshot(page: Page, name: string, alsoTo?: string, fullPage = true) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `console-${name}.png`), fullPage, timeout: WAIT_MS });
  if (alsoTo && (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(alsoTo)))
    await page.screenshot({ path: alsoTo, fullPage: false, timeout: WAIT_MS });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  tags: string[];
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page (WCAG 2.1 A and AA rules and best practices) and fails on any serious or
 * critical violation; with `everyWcag`, on any violation of a WCAG rule too, whatever its impact. The source
 * is evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern (an
 * injected <script> would be refused, rightly).
 */
export async function assertAccessible(page: Page, what: string, options: { everyWcag?: boolean } = {}) {
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (!loaded) await page.evaluate(axe.source);
  const violations = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
       .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, tags: v.tags, nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`,
  )) as AxeViolation[];
  const failing = violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical' || (options.everyWcag && v.tags.some((tag) => /^wcag2\d*a+$/.test(tag))),
  );
  assert.deepEqual(
    failing.map((v) => `${v.impact} ${v.id}: ${v.help} — ${JSON.stringify(v.nodes)}`),
    [],
    `${what}: no ${options.everyWcag ? 'WCAG 2 A/AA, nor serious or critical,' : 'serious or critical'} accessibility violation`,
  );
}

/** Whether the page scrolls sideways (its content is wider than the viewport). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth + 1')) as boolean;
}
