import { createHmac, randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { type IncomingMessage, type RequestOptions, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type LookupFunction, isIP } from 'node:net';
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

/** a.b.c.d as four octets, or null. */
function ipv4Octets(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return octets.every((octet) => octet <= 255) ? octets : null;
}

function isPrivateV4([a, b, c]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && c === 0) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
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

/** Loopback, private, link-local, shared, benchmarking, multicast or reserved. Anything that is not an IP counts as private (refused). */
export function isPrivateAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) {
    const octets = ipv4Octets(ip);
    return octets === null || isPrivateV4(octets);
  }
  if (version !== 6) return true;
  const g = ipv6Groups(ip);
  if (g === null) return true;
  const v4 = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  if (g.slice(0, 6).every((group) => group === 0)) return isPrivateV4(v4); // ::, ::1 and IPv4-compatible ::a.b.c.d
  if (g.slice(0, 5).every((group) => group === 0) && g[5] === 0xffff) return isPrivateV4(v4); // IPv4-mapped ::ffff:a.b.c.d
  return (g[0] & 0xfe00) === 0xfc00 || (g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xff00) === 0xff00;
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
