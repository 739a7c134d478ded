// Rule (issue 44, point 3): a client finds the files shared with them in the portal: their file channels, each folder
// with breadcrumbs back up, a download of each file and of a folder as a zip; where the folder lets clients write, a
// new folder and uploads (several at once, large ones too) with a progress bar each; a read-only folder offers neither.
// In headless Chromium against a `portal serve` process: the journey at 320 px, each page at 1280 px too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Download, Page } from 'playwright-core';
import { fromBufferPromise } from 'yauzl';
import { WAIT_MS } from './helpers/browser.js';
import {
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

const BIG = 20 * 1024 * 1024;

let portal: PortalServer;
let dir: string;
before(async () => {
  portal = await startPortal();
  dir = mkdtempSync(join(tmpdir(), 'portal-files-'));
});
after(async () => {
  await portal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the folder's table shows, exactly this text (a name, a size). */
const listed = (page: Page, text: string) => page.getByRole('table').getByText(text, { exact: true });

/** The bytes a download in the tab brought. */
async function bytesOf(download: Promise<Download>): Promise<Buffer> {
  const path = await (await download).path();
  return readFileSync(path);
}

/** The names of a zip archive's entries. */
async function entriesOf(zip: Buffer): Promise<string[]> {
  const archive = await fromBufferPromise(zip);
  const names: string[] = [];
  for await (const entry of archive.eachEntry()) names.push(entry.fileName);
  return names;
}

/**
 * Every value each upload's progress bar shows, by file name, as it changes (watched in the page from now on; a
 * string, as tsx's helpers do not exist in the page).
 */
async function watchProgress(page: Page): Promise<() => Promise<Record<string, number[]>>> {
  await page.evaluate(`(() => {
    const seen = (window.progressSeen = {});
    const record = () => {
      for (const bar of document.querySelectorAll('[role="progressbar"]')) {
        const name = document.getElementById(bar.getAttribute('aria-labelledby') || '')?.textContent || '';
        const value = Number(bar.getAttribute('aria-valuenow'));
        const values = (seen[name] ??= []);
        if (values[values.length - 1] !== value) values.push(value);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true });
  })()`);
  return () => page.evaluate('window.progressSeen') as Promise<Record<string, number[]>>;
}

const TEST_MS = 120_000;

test('a client browses, adds a folder, uploads two files (one of 20 MiB), downloads a file and a folder', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const company = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Hopper & Co' });
  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  const clientId = await signedInClient(ws, v, {
    email: 'grace@acme.test',
    givenName: 'Grace',
    familyName: 'Hopper',
    companyId: company.id,
  });

  // The workspace shares a channel with her: a file at its root, and a read-only folder holding a signed contract.
  const channel = await ws.call<{ id: string }>('POST', '/v1/channels/files', { membershipType: 'individual', clientId });
  await ws.call('POST', '/v1/files/folder', { channelId: channel.id, path: 'Contracts', clientPermissions: 'read_only' });
  for (const [path, content] of [
    ['Welcome.txt', 'Welcome aboard.'],
    ['Contracts/Signed contract.pdf', '%PDF-1.7 signed'],
  ]) {
    const file = await ws.call<{ uploadUrl: string }>('POST', '/v1/files/file', { channelId: channel.id, path });
    const uploaded = await fetch(file.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: content });
    assert.equal(uploaded.status, 200, await uploaded.text());
  }

  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Files' }).click();
  await arrived(v, 'files-channels-320', 'Files');
  await page.getByRole('link', { name: 'Your files' }).click();
  await arrived(v, 'files-root-320', 'Your files');
  await listed(page, 'Welcome.txt').waitFor();
  await page.getByRole('link', { name: 'Contracts (folder)' }).waitFor();

  // A new folder, then into it.
  await page.getByLabel('Folder name').fill('Reports');
  await page.getByRole('button', { name: 'Create the folder' }).click();
  await page.getByText('Folder “Reports” created.').waitFor();
  await page.getByRole('link', { name: 'Reports (folder)' }).click();
  await arrived(v, 'files-folder-empty-320', 'Reports');
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
  assert.deepEqual(await crumbs.getByRole('listitem').allInnerTexts(), ['Files', 'Your files', 'Reports']);
  await page.getByText('Nothing here yet: add files or a folder below.').waitFor();

  // Two files at once, one of 20 MiB: each with its progress bar, which advances to 100.
  const big = randomBytes(BIG);
  writeFileSync(join(dir, 'Quarterly figures.bin'), big);
  writeFileSync(join(dir, 'notes.txt'), 'A short note.');
  const progress = await watchProgress(page);
  // The test's own connection is loopback: a throttled upload (64 MiB/s) lets the bar be seen between 0 and 100.
  const cdp = await v.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 64 * 1024 * 1024,
  });
  await page.getByLabel('Files', { exact: true }).setInputFiles([join(dir, 'Quarterly figures.bin'), join(dir, 'notes.txt')]);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('2 files uploaded.').waitFor({ timeout: WAIT_MS * 2 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  for (const name of ['Quarterly figures.bin', 'notes.txt']) {
    assert.equal(await page.getByRole('progressbar', { name }).getAttribute('aria-valuenow'), '100', name);
  }
  const seen = await progress();
  const bigSeen = seen['Quarterly figures.bin'] ?? [];
  assert.ok(
    bigSeen.some((value) => value > 0 && value < 100) && bigSeen[bigSeen.length - 1] === 100,
    `the big file's bar advanced: ${bigSeen.join(', ')}`,
  );
  assert.deepEqual(
    bigSeen,
    [...bigSeen].sort((a, b) => a - b),
    'never backwards',
  );
  await listed(page, 'Quarterly figures.bin').waitFor();
  await listed(page, 'notes.txt').waitFor();
  await listed(page, '20 MB').waitFor();
  await checkPage(v, 'files-uploaded-320');

  // The big file downloads whole, byte for byte.
  const downloaded = bytesOf(page.waitForEvent('download'));
  await page.getByRole('link', { name: 'Download Quarterly figures.bin' }).click();
  assert.ok((await downloaded).equals(big), 'the bytes downloaded are the bytes uploaded');

  // Up through the breadcrumbs, into the read-only folder: no upload, no new folder; the folder downloads as a zip.
  await crumbs.getByRole('link', { name: 'Your files' }).click();
  await arrived(v, 'files-root-after-320', 'Your files');
  await page.getByRole('link', { name: 'Contracts (folder)' }).click();
  await arrived(v, 'files-read-only-320', 'Contracts');
  await page.getByText('You can open and download what is here, but not add to it.').waitFor();
  await listed(page, 'Signed contract.pdf').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Upload' }).count(), 0, 'no upload in a read-only folder');
  assert.equal(await page.getByRole('heading', { name: 'New folder' }).count(), 0, 'no new folder in a read-only folder');
  assert.equal(await page.locator('input[type=file]').count(), 0);
  const zip = bytesOf(page.waitForEvent('download'));
  await page.getByRole('link', { name: 'Download the folder as a zip' }).click();
  assert.deepEqual((await entriesOf(await zip)).sort(), ['Contracts/', 'Contracts/Signed contract.pdf']);
  assertSameOrigin(portal, v);

  // Each page at 1280 px.
  const wide = await visit(portal, 1280);
  t.after(() => wide.context.close());
  await wide.context.addCookies(await v.context.cookies());
  const reports = await ws.call<{ data: { id: string; path: string }[] }>('GET', `/v1/files?channelId=${channel.id}`);
  const folderId = (path: string) => reports.data.find((f) => f.path === path)?.id ?? '';
  for (const [at, name, title] of [
    ['files', 'files-channels-1280', 'Files'],
    [`files/${channel.id}`, 'files-root-1280', 'Your files'],
    [`files/${channel.id}/${folderId('Reports')}`, 'files-folder-1280', 'Reports'],
    [`files/${channel.id}/${folderId('Contracts')}`, 'files-read-only-1280', 'Contracts'],
  ]) {
    await wide.page.goto(`${ws.pages}/${at}`);
    await arrived(wide, name, title);
  }
  await listed(wide.page, 'Signed contract.pdf').waitFor();
  assertSameOrigin(portal, wide);
});

test('no channel yet: the Files page says so; a folder that is not there says so', { timeout: 60_000 }, async (t) => {
  const ws = await newWorkspace(portal, 'Empty');
  const v: Visit = await visit(portal, 320);
  t.after(() => v.context.close());
  await signedInClient(ws, v, { email: 'ada@empty.test', givenName: 'Ada', familyName: 'Lovelace' });
  await v.page.goto(`${ws.pages}/files`);
  await arrived(v, 'files-none-320', 'Files');
  await v.page.getByText('No files are shared with you yet.').waitFor();
  await v.page.goto(`${ws.pages}/files/00000000-0000-4000-8000-000000000000`);
  await arrived(v, 'files-missing-320', 'Files not found');
  await v.page.getByText('These files are not here, or are no longer shared with you.').waitFor();
});
