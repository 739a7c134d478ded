import { createHmac, randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { type IncomingMessage, type RequestOptions, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, type LookupFunction, isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';

/** Resolves a host name to all its addresses (dns.promises.lookup with all: true); injectable for tests. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface WebhookResponse {
  /** The HTTP status, or null when none was received (network error, refused address, timeout). */
  status: number | null;
  durationMs: number;
  /** The first EXCERPT_CHARS characters of the response body. */
  excerpt: string;
  error: string | null;
}

/** A webhook URL refused for its scheme or address. */
export class WebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAddressError';
  }
}

const SECRET_PREFIX = 'whsec_';
const EXCERPT_CHARS = 1_000;
/** Past this many response bytes the connection is dropped: nothing beyond the excerpt is kept. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const defaultLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The headers of one delivery, signed per Standard Webhooks with every secret (current first). */
export function signWebhook(input: { id: string; timestamp: number; body: string; secrets: readonly string[] }): Record<string, string> {
  const { id, timestamp, body, secrets } = input;
  if (secrets.length === 0) throw new Error('signWebhook: at least one secret is required');
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  });
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
    // Keyed with the whole `whsec_…` text as shown to the user (not its decoded bytes), so a receiver
    // can verify with a plain `createHmac('sha256', secret)` without knowing the Standard Webhooks encoding.
    'x-copilot-signature': createHmac('sha256', secrets[0]).update(body).digest('hex'),
    'content-type': 'application/json',
    'user-agent': 'portal-platform-webhooks/1',
  };
}

/**
 * Every range a webhook may not reach: where a packet goes to no public host. The IANA special-purpose
 * registries' entries that are not globally reachable, plus multicast and the documentation ranges.
 * An IPv6 address carrying an IPv4 one (IPV4_CARRIERS) is judged by that IPv4 address against this table.
 */
const REFUSED_RANGES: readonly string[] = [
  '0.0.0.0/8', // "this" network
  '10.0.0.0/8', // private
  '100.64.0.0/10', // shared (CGNAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata at 169.254.169.254)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.88.99.0/24', // 6to4 relay anycast (deprecated): whatever relay is nearest
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
  '::/128', // unspecified
  '::1/128', // loopback
  '::ffff:0:0:0/96', // IPv4-translated (SIIT): where it leads depends on a translator, not on the address
  '64:ff9b:1::/48', // local-use NAT64: the translator's prefix length, so the IPv4 bits' place, is local
  '100::/64', // discard-only
  '2001:2::/48', // benchmarking
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated, still routed inside some sites)
  'ff00::/8', // multicast
];

/**
 * IPv6 prefixes whose packets are delivered to an IPv4 address written into the address itself (bytes
 * `at` to `at + 4`): judged by that IPv4 address, so a public one stays reachable and a private one does not.
 */
const IPV4_CARRIERS: readonly { prefix: string; at: number }[] = [
  { prefix: '::ffff:0:0/96', at: 12 }, // IPv4-mapped: the socket connects over IPv4
  { prefix: '::/96', at: 12 }, // IPv4-compatible (deprecated): automatic tunnels send it to that IPv4 address
  // NAT64 well-known prefix: a translator forwards to exactly that IPv4 address. Judged rather than refused
  // whole because on an IPv6-only network with DNS64 every IPv4-only receiver resolves into this prefix.
  { prefix: '64:ff9b::/96', at: 12 },
  // 6to4 (deprecated): tunnelled to the IPv4 address in bits 16-48, the site's router, so that address decides
  // where it goes. Judged rather than refused whole so a receiver still behind a public 6to4 router is reachable.
  { prefix: '2002::/16', at: 2 },
];

function subnets(ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [network, bits] = range.split('/');
    list.addSubnet(network, Number(bits), isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

const refused = subnets(REFUSED_RANGES);
const carriers = IPV4_CARRIERS.map(({ prefix, at }) => ({ list: subnets([prefix]), at }));

/** a.b.c.d as four octets, or null. */
function ipv4Octets(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** An IPv6 address (already checked by isIP) as eight 16-bit groups, or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.split('%')[0];
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const octets = ipv4Octets(text.slice(lastColon + 1));
    if (!octets) return null;
    tail.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : Number.NaN));
  const head = groupsOf(halves[0]);
  const rest = halves.length === 2 ? groupsOf(halves[1]) : [];
  const fill = 8 - head.length - rest.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...new Array<number>(fill).fill(0), ...rest, ...tail];
  return groups.some(Number.isNaN) ? null : groups;
}

/**
 * In a refused range (REFUSED_RANGES), or an IPv6 address carrying an IPv4 address that is. Anything that is
 * not an IP counts as refused. Each address is rewritten in one spelling first (four decimal octets, eight
 * hex groups without zone), so compressed, expanded, upper-case and dotted-tail forms are judged alike.
 */
export function isPrivateAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) {
    const octets = ipv4Octets(ip);
    return octets === null || refused.check(octets.join('.'), 'ipv4');
  }
  if (version !== 6) return true;
  const groups = ipv6Groups(ip);
  if (groups === null) return true;
  const canonical = groups.map((group) => group.toString(16)).join(':');
  if (refused.check(canonical, 'ipv6')) return true;
  const carrier = carriers.find(({ list }) => list.check(canonical, 'ipv6'));
  if (carrier === undefined) return false;
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  return refused.check(bytes.slice(carrier.at, carrier.at + 4).join('.'), 'ipv4');
}

function refusedAddress(address: string, hostname: string): WebhookAddressError {
  const from = address === hostname ? '' : ` (${hostname})`;
  return new WebhookAddressError(`webhook URL refused: ${address}${from} is a private or reserved address`);
}

/** The URL, or a WebhookAddressError when it is not http(s). */
function httpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookAddressError('webhook URL refused: must be an http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new WebhookAddressError('webhook URL refused: must be an http(s) URL');
  return parsed;
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
}

/** The addresses of a host, refused (WebhookAddressError) when there are none or, unless allowPrivate, when any is private. */
async function checkedAddresses(hostname: string, allowPrivate: boolean, lookup: LookupAll) {
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(hostname);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? ` (${String(error.code)})` : '';
    throw new WebhookAddressError(`webhook URL refused: ${hostname} does not resolve${code}`);
  }
  if (addresses.length === 0) throw new WebhookAddressError(`webhook URL refused: ${hostname} does not resolve`);
  if (!allowPrivate) {
    // Any private answer refuses the host: which address a client would pick is not ours to predict.
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused) throw refusedAddress(refused.address, hostname);
  }
  return addresses;
}

/** Throws WebhookAddressError unless the URL is http(s) and (unless allowPrivate) its host resolves to public addresses only. */
export async function assertPublicUrl(url: string, options: { allowPrivate: boolean; lookup?: LookupAll }): Promise<void> {
  const host = hostOf(httpUrl(url));
  if (options.allowPrivate) return;
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) throw refusedAddress(host, host);
    return;
  }
  await checkedAddresses(host, false, options.lookup ?? defaultLookup);
}

/**
 * Node's `lookup` connection option, resolving through `lookup` and refusing private answers. Node calls it when it
 * connects, so the address checked is the address connected to (no DNS rebinding between check and use).
 */
function guardedLookup(lookup: LookupAll, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, allowPrivate, lookup).then(
      (all) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family === 0 ? all : all.filter((entry) => entry.family === family);
        if (addresses.length === 0)
          callback(new WebhookAddressError(`webhook URL refused: ${hostname} has no IPv${family} address`), options.all ? [] : '');
        else if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => callback(error, options.all ? [] : ''),
    );
  };
}

/** POSTs one delivery: no redirects, a whole-request timeout, at most an excerpt of the answer kept; never rejects. */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean; lookup?: LookupAll },
): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = httpUrl(url);
    const host = hostOf(target);
    // Node does not call `lookup` for an IP literal: check it here.
    if (!options.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) throw refusedAddress(host, host);
  } catch (error) {
    return { status: null, durationMs: elapsed(), excerpt: '', error: error instanceof Error ? error.message : String(error) };
  }

  return new Promise<WebhookResponse>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (status: number | null, excerpt: string, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, durationMs: elapsed(), excerpt: excerpt.slice(0, EXCERPT_CHARS), error });
    };

    const requestOptions: RequestOptions = {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      // A fresh connection per delivery: an address checked by the lookup is never reused after a re-resolution.
      agent: false,
      lookup: guardedLookup(options.lookup ?? defaultLookup, options.allowPrivate),
    };
    const onResponse = (response: IncomingMessage) => {
      const status = response.statusCode ?? null;
      const decoder = new StringDecoder('utf8');
      let excerpt = '';
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (excerpt.length < EXCERPT_CHARS) excerpt += decoder.write(chunk);
        if (received > MAX_RESPONSE_BYTES) {
          settle(status, excerpt, null);
          req.destroy();
        }
      });
      response.on('end', () => settle(status, excerpt + decoder.end(), null));
      response.on('error', (error) => settle(status, excerpt, error.message));
      response.on('close', () => settle(status, excerpt, null));
    };
    const req =
      target.protocol === 'https:' ? httpsRequest(target, requestOptions, onResponse) : httpRequest(target, requestOptions, onResponse);
    req.on('error', (error) => settle(null, '', error.message));

    // Timers may fire up to a millisecond early by performance.now(): wait out the remainder so the timeout is never short.
    const onTimer = () => {
      const left = options.timeoutMs - (performance.now() - started);
      if (left > 0) {
        timer = setTimeout(onTimer, Math.ceil(left));
        return;
      }
      settle(null, '', `timed out after ${options.timeoutMs} ms`);
      req.destroy();
    };
    timer = setTimeout(onTimer, options.timeoutMs);
    req.end(body);
  });
}
