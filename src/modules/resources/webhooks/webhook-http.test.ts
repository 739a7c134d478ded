import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  type LookupAll,
  WebhookAddressError,
  assertPublicUrl,
  isPrivateAddress,
  newWebhookSecret,
  postWebhook,
  signWebhook,
} from './webhook-http.js';

const BODY = JSON.stringify({ eventType: 'client.created', created: '2026-01-01T00:00:00.000Z', data: { id: 'c1' } });

/** A lookup answering these addresses for any host. */
function lookupOf(...addresses: string[]): LookupAll {
  return async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A node:http server on 127.0.0.1 (a free port) recording each request and counting connections, answered by `answer`; closed after the suite. */
async function server(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const received: Received[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  let connections = 0;
  http.on('connection', () => connections++);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  after(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const { port } = http.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}/hooks`, received, connections: () => connections };
}

describe('webhook signatures', () => {
  const now = () => Math.floor(Date.now() / 1000);

  test('one secret: the Standard Webhooks library verifies the headers and returns the payload', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'msg_1', timestamp: now(), body: BODY, secrets: [secret] });
    assert.deepEqual(new Webhook(secret).verify(BODY, headers), JSON.parse(BODY));
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  });

  test('two secrets during a rotation: one signature each, either secret verifies', () => {
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    const headers = signWebhook({ id: 'msg_2', timestamp: now(), body: BODY, secrets: [current, previous] });
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(new Webhook(current).verify(BODY, headers), JSON.parse(BODY));
    assert.deepEqual(new Webhook(previous).verify(BODY, headers), JSON.parse(BODY));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(BODY, headers), /No matching signature/);
  });

  test('a tampered body fails verification', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'msg_3', timestamp: now(), body: BODY, secrets: [secret] });
    assert.throws(() => new Webhook(secret).verify(BODY.replace('c1', 'c2'), headers), /No matching signature/);
  });

  test('the other headers: id, timestamp, x-copilot-signature is the hex HMAC of the body keyed with the whole first secret', () => {
    const current = newWebhookSecret();
    const headers = signWebhook({ id: 'msg_4', timestamp: 1_700_000_000, body: BODY, secrets: [current, newWebhookSecret()] });
    assert.deepEqual(headers, {
      'webhook-id': 'msg_4',
      'webhook-timestamp': '1700000000',
      'webhook-signature': headers['webhook-signature'],
      'x-copilot-signature': createHmac('sha256', current).update(BODY).digest('hex'),
      'content-type': 'application/json',
      'user-agent': 'portal-platform-webhooks/1',
    });
  });

  test('newWebhookSecret is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    assert.notEqual(newWebhookSecret(), secret);
  });
});

describe('isPrivateAddress', () => {
  const cases: [string, boolean][] = [
    ['0.0.0.0', true],
    ['0.255.255.255', true],
    ['1.0.0.0', false],
    ['10.0.0.1', true],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['100.63.255.255', false],
    ['100.64.0.0', true],
    ['100.127.255.255', true],
    ['100.128.0.0', false],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['169.254.169.254', true],
    ['169.253.255.255', false],
    ['172.15.255.255', false],
    ['172.16.0.0', true],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['192.0.0.8', true],
    ['192.0.1.1', false],
    ['192.168.1.1', true],
    ['192.169.0.0', false],
    ['198.17.255.255', false],
    ['198.18.0.0', true],
    ['198.19.255.255', true],
    ['198.20.0.0', false],
    ['223.255.255.255', false],
    ['224.0.0.1', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['::', true],
    ['::1', true],
    ['::2', true],
    ['fc00::1', true],
    ['fd12::1', true],
    ['fe00::1', false],
    ['fe80::1', true],
    ['febf::1', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['2606:4700::1111', false],
    ['2001:4860:4860::8888', false],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.1.2.3', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:808:808', false],
    ['::127.0.0.1', true],
    ['::8.8.8.8', false],
    ['fe80::1%eth0', true],
    ['not-an-ip', true],
    ['', true],
  ];
  for (const [ip, expected] of cases) {
    test(`${ip || "''"} is ${expected ? 'private' : 'public'}`, () => {
      assert.equal(isPrivateAddress(ip), expected);
    });
  }
});

/** The IPv6 spellings of an IPv4 address that the guard judges by that IPv4 address: mapped, compatible, NAT64, 6to4. */
function carriedIn6(v4: string): string[] {
  const [a, b, c, d] = v4.split('.').map(Number);
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  return [
    `::ffff:${v4}`,
    `::FFFF:${high}:${low}`,
    `0:0:0:0:0:ffff:${high}:${low}`,
    `::${v4}`,
    `64:ff9b::${v4}`,
    `0064:FF9B:0000:0000:0000:0000:${high}:${low}`,
    `2002:${high}:${low}::1`,
    `2002:${high}:${low}:ffff:ffff:ffff:ffff:ffff`,
  ];
}

/** How the address is written in a URL: IPv6 in brackets. */
const urlOf = (ip: string) => (ip.includes(':') ? `http://[${ip}]/hook` : `http://${ip}/hook`);
/** The address as the URL parser writes it back (compressed, lower-case IPv6; decimal IPv4), which the refusal names. */
const hostIn = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

describe('refused ranges: documentation, 6to4 relay, SIIT, NAT64, 6to4, site-local, discard-only', () => {
  // Each range's lowest and highest address where that matters, in the spellings the guard rewrites.
  const ranges: [range: string, addresses: string[]][] = [
    ['192.0.2.0/24 (TEST-NET-1)', ['192.0.2.0', '192.0.2.1', '192.0.2.255', ...carriedIn6('192.0.2.1')]],
    ['198.51.100.0/24 (TEST-NET-2)', ['198.51.100.0', '198.51.100.255', ...carriedIn6('198.51.100.7')]],
    ['203.0.113.0/24 (TEST-NET-3)', ['203.0.113.0', '203.0.113.255', ...carriedIn6('203.0.113.9')]],
    ['192.88.99.0/24 (6to4 relay anycast)', ['192.88.99.0', '192.88.99.1', '192.88.99.255', ...carriedIn6('192.88.99.1')]],
    // An IPv4-translated address is refused whatever IPv4 address it carries, a public one included.
    ['::ffff:0:0:0/96 (SIIT)', ['::ffff:0:8.8.8.8', '::ffff:0:10.0.0.1', '::FFFF:0:0:0', '0:0:0:0:ffff:0:ffff:ffff']],
    // The NAT64 well-known prefix is judged by its IPv4 address: private ones refused (public ones below).
    [
      '64:ff9b::/96 (NAT64) with a non-public IPv4',
      ['64:ff9b::10.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b::c0a8:101', '64:ff9b::'],
    ],
    ['64:ff9b:1::/48 (local-use NAT64)', ['64:ff9b:1::8.8.8.8', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff']],
    // 6to4 is judged by the IPv4 address in bits 16-48 (public ones below).
    ['2002::/16 (6to4) with a non-public IPv4', ['2002:a00:1::1', '2002:7f00:1::', '2002:a9fe:a9fe::1', '2002::', '2002:ffff:ffff::1']],
    [
      'fec0::/10 (site-local)',
      ['fec0::1', 'FEC0:0000:0000:0000:0000:0000:0000:0001', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fec0::1%eth0'],
    ],
    ['100::/64 (discard-only)', ['100::', '100::1', '0100:0:0:0:ffff:ffff:ffff:ffff']],
    ['2001:db8::/32 and 3fff::/20 (documentation)', ['2001:db8::1', '2001:DB8:FFFF::1', '3fff::1', '3fff:fff:ffff::1']],
    ['2001:2::/48 (benchmarking)', ['2001:2::1', '2001:2:0:ffff::1']],
    // Ranges refused before, reached through the IPv6 forms that carry an IPv4 address.
    [
      'loopback, private, link-local and CGNAT through NAT64 and 6to4',
      ['127.0.0.1', '10.1.2.3', '169.254.169.254', '100.64.0.1'].flatMap(carriedIn6),
    ],
  ];
  const accepted = [
    '192.0.1.255',
    '192.0.3.1',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.1',
    '192.88.98.255',
    '192.88.100.0',
    '::ffff:192.0.3.1',
    '2001:4860:4860::8888',
    '2001:db9::1',
    '2001:3::1',
    '3fff:1000::1',
    '100:0:0:1::1',
    '2003::1',
    '64:ff9b::8.8.8.8',
    '64:ff9b::cb00:7201',
    '2002:808:808::1',
    '2002:c000:301::1',
    '2002:cb00:7201::1',
  ];
  const refusal = (address: string, name = address) =>
    `webhook URL refused: ${address}${name === address ? '' : ` (${name})`} is a private or reserved address`;
  const signed = () => signWebhook({ id: 'msg_r', timestamp: Math.floor(Date.now() / 1000), body: BODY, secrets: [newWebhookSecret()] });

  for (const [range, addresses] of ranges) {
    test(`${range}: refused as an address, as a URL, as a name's answer, and when connecting`, async () => {
      const local = await server((_req, res) => res.writeHead(200).end());
      for (const address of addresses) {
        assert.equal(isPrivateAddress(address), true, address);
        // A zone id is no part of a URL's host: the literal-URL checks take the address without it.
        const literal = address.split('%')[0];
        const url = urlOf(literal);
        await assert.rejects(
          assertPublicUrl(url, { allowPrivate: false }),
          { name: 'WebhookAddressError', message: refusal(hostIn(url)) },
          url,
        );
        await assert.rejects(
          assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: lookupOf(address) }),
          { name: 'WebhookAddressError', message: refusal(address, 'hook.test') },
          address,
        );
        const byLiteral = await postWebhook(url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: false });
        assert.deepEqual({ ...byLiteral, durationMs: 0 }, { status: null, durationMs: 0, excerpt: '', error: refusal(hostIn(url)) }, url);
        // Connect time: the socket's own lookup gets this address for the name (DNS rebinding) and refuses it.
        const byName = await postWebhook(`http://hook.test:${local.port}/`, signed(), BODY, {
          timeoutMs: 5_000,
          allowPrivate: false,
          lookup: lookupOf(address),
        });
        assert.deepEqual(
          { ...byName, durationMs: 0 },
          { status: null, durationMs: 0, excerpt: '', error: refusal(address, 'hook.test') },
          address,
        );
      }
      assert.equal(local.connections(), 0);
    });
  }

  test('public addresses next to those ranges, and NAT64 and 6to4 carrying a public IPv4, are accepted', async () => {
    for (const address of accepted) {
      assert.equal(isPrivateAddress(address), false, address);
      await assertPublicUrl(urlOf(address), { allowPrivate: false });
      await assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: lookupOf(address) });
    }
  });

  test('URL spellings of a refused IPv4 address (integer, hex, octal, trailing dot) are refused as the address', async () => {
    for (const url of [
      'http://3221225985/',
      'http://0xc0.0.2.1/',
      'http://0300.0.2.1/',
      'http://192.0.2.1./',
      'http://[::FFFF:0:192.0.2.1]/',
    ]) {
      const expected = url.includes('[') ? '::ffff:0:c000:201' : '192.0.2.1';
      await assert.rejects(assertPublicUrl(url, { allowPrivate: false }), { message: refusal(expected) }, url);
      const response = await postWebhook(url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: false });
      assert.equal(response.error, refusal(expected), url);
    }
  });
});

describe('assertPublicUrl', () => {
  test('an ftp: URL is refused: must be an http(s) URL', async () => {
    await assert.rejects(assertPublicUrl('ftp://example.com/hook', { allowPrivate: true }), {
      name: 'WebhookAddressError',
      message: 'webhook URL refused: must be an http(s) URL',
    });
  });

  test('http://127.0.0.1/ is refused without allowPrivate and accepted with it', async () => {
    await assert.rejects(assertPublicUrl('http://127.0.0.1/', { allowPrivate: false }), {
      name: 'WebhookAddressError',
      message: 'webhook URL refused: 127.0.0.1 is a private or reserved address',
    });
    await assertPublicUrl('http://127.0.0.1/', { allowPrivate: true });
  });

  test('an IPv6 literal is checked without its brackets', async () => {
    await assert.rejects(assertPublicUrl('https://[::1]:8443/', { allowPrivate: false }), {
      message: 'webhook URL refused: ::1 is a private or reserved address',
    });
    await assertPublicUrl('https://[2606:4700::1111]/', { allowPrivate: false, lookup: lookupOf('127.0.0.1') });
  });

  test('a host resolving to one public and one private address is refused', async () => {
    await assert.rejects(assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: lookupOf('93.184.216.34', '10.0.0.7') }), {
      name: 'WebhookAddressError',
      message: 'webhook URL refused: 10.0.0.7 (hook.test) is a private or reserved address',
    });
  });

  test('a host resolving to public addresses only passes', async () => {
    await assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: lookupOf('93.184.216.34', '2606:4700::1111') });
  });

  test('a host that does not resolve is refused', async () => {
    await assert.rejects(assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: lookupOf() }), {
      message: 'webhook URL refused: hook.test does not resolve',
    });
    const failing: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hook.test'), { code: 'ENOTFOUND' });
    };
    await assert.rejects(assertPublicUrl('https://hook.test/x', { allowPrivate: false, lookup: failing }), (error: unknown) => {
      assert.ok(error instanceof WebhookAddressError);
      assert.equal(error.message, 'webhook URL refused: hook.test does not resolve (ENOTFOUND)');
      return true;
    });
  });
});

describe('postWebhook', () => {
  const signed = () => signWebhook({ id: 'msg_p', timestamp: Math.floor(Date.now() / 1000), body: BODY, secrets: [newWebhookSecret()] });

  test('POSTs the headers and body exactly as given and returns the status and the answer', async () => {
    const local = await server((_req, res) => res.writeHead(202).end('accepted'));
    const headers = signed();
    const response = await postWebhook(local.url, headers, BODY, { timeoutMs: 5_000, allowPrivate: true });
    assert.deepEqual({ ...response, durationMs: 0 }, { status: 202, durationMs: 0, excerpt: 'accepted', error: null });
    assert.ok(Number.isInteger(response.durationMs) && response.durationMs >= 0);
    assert.equal(local.received.length, 1);
    const [request] = local.received;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks');
    assert.equal(request.body, BODY);
    assert.equal(request.headers['content-length'], String(Buffer.byteLength(BODY)));
    for (const [name, value] of Object.entries(headers)) assert.equal(request.headers[name], value, name);
  });

  test('the excerpt is the first 1,000 characters of a 5,000-character answer', async () => {
    const answer = 'abcdefghij'.repeat(500);
    const local = await server((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(answer));
    const response = await postWebhook(local.url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: true });
    assert.equal(response.status, 200);
    assert.equal(response.excerpt, answer.slice(0, 1_000));
    assert.equal(response.error, null);
  });

  test('an endless answer is cut after 64 KiB, well before the timeout', async () => {
    const endless = await server((_req, res) => {
      res.writeHead(200);
      res.write('x'.repeat(1024 * 1024)); // and never ends
    });
    const response = await postWebhook(endless.url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: true });
    assert.deepEqual({ ...response, durationMs: 0 }, { status: 200, durationMs: 0, excerpt: 'x'.repeat(1_000), error: null });
    assert.ok(response.durationMs < 5_000);
  });

  test('a 410 is returned as status 410; a 3xx is not followed', async () => {
    const gone = await server((_req, res) => res.writeHead(410).end('gone'));
    assert.equal((await postWebhook(gone.url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: true })).status, 410);
    const moved = await server((_req, res) => res.writeHead(302, { location: gone.url }).end());
    const response = await postWebhook(moved.url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: true });
    assert.equal(response.status, 302);
    assert.equal(gone.received.length, 1);
  });

  test('a server that never answers: status null, timed out after 200 ms', async () => {
    const silent = await server(() => {});
    const response = await postWebhook(silent.url, signed(), BODY, { timeoutMs: 200, allowPrivate: true });
    assert.equal(response.status, null);
    assert.equal(response.error, 'timed out after 200 ms');
    assert.equal(response.excerpt, '');
    assert.ok(response.durationMs >= 200 && response.durationMs < 2_000, String(response.durationMs));
  });

  test('a closed port: status null and the network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const response = await postWebhook(`http://127.0.0.1:${port}/`, signed(), BODY, { timeoutMs: 5_000, allowPrivate: true });
    assert.equal(response.status, null);
    assert.match(response.error ?? '', /ECONNREFUSED/);
  });

  test('an IP-literal private URL is refused before sending unless allowPrivate', async () => {
    const local = await server((_req, res) => res.writeHead(200).end());
    const response = await postWebhook(local.url, signed(), BODY, { timeoutMs: 5_000, allowPrivate: false });
    assert.equal(response.status, null);
    assert.equal(response.error, 'webhook URL refused: 127.0.0.1 is a private or reserved address');
    assert.equal(local.connections(), 0);
  });

  test('DNS rebinding: a name resolving to 127.0.0.1 when connecting is refused and nothing is sent', async () => {
    const local = await server((_req, res) => res.writeHead(200).end());
    const lookup = lookupOf('127.0.0.1');
    const response = await postWebhook(`http://hook.test:${local.port}/`, signed(), BODY, {
      timeoutMs: 5_000,
      allowPrivate: false,
      lookup,
    });
    assert.equal(response.status, null);
    assert.equal(response.error, 'webhook URL refused: 127.0.0.1 (hook.test) is a private or reserved address');
    assert.equal(local.received.length, 0);
    assert.equal(local.connections(), 0);
  });

  test('the connect-time lookup is used when private addresses are allowed', async () => {
    const local = await server((_req, res) => res.writeHead(204).end());
    const response = await postWebhook(`http://hook.test:${local.port}/`, signed(), BODY, {
      timeoutMs: 5_000,
      allowPrivate: true,
      lookup: lookupOf('127.0.0.1'),
    });
    assert.equal(response.status, 204);
    assert.equal(local.received.length, 1);
    assert.equal(local.received[0].headers.host, `hook.test:${local.port}`);
  });
});
