// The benchmark scenarios. Each is measured against a bare Fastify route serving a body of the same
// size (bench/baseline.ts), against the naive server (bench/naive-server.ts) when `naive` is set, and
// against the real server. `directory` scenarios also run with `--clients N`; the others only in the
// default run. To add one, append to SCENARIOS (its `key` names it in the targets, report.ts).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RequestSpec } from './load.js';

/** A target that runs through the whole bench: the real server or the naive one. */
export type RunningTarget = 'server' | 'naive';

export interface Workspace {
  readonly workspaceId: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
}

export interface Sample {
  readonly status: number;
  readonly text: string;
  readonly bytes: number;
  /** Whether the answer was JSON (else the bare route sends the same bytes as application/octet-stream). */
  readonly json: boolean;
}

/** What a scenario can use: the seeded workspaces, the running targets, and a scratch space. */
export interface BenchContext {
  /** Clients seeded in `reads` before the servers started. */
  readonly clients: number;
  /** The workspace holding the seeded clients: every read scenario uses it. */
  readonly reads: Workspace;
  /** A sample of the seeded client ids (every hundredth or so). */
  readonly clientIds: readonly string[];
  /**
   * A second workspace (with 100 companies, no clients) for POST /v1/clients, so the inserts of one
   * round leave the pages of the read workspace exactly as seeded for the next; null with --clients.
   */
  readonly writes:
    | (Workspace & {
        readonly companyIds: readonly string[];
        /** A company message channel per company, and an admin who may send in each. */
        readonly messageChannelIds: readonly string[];
        readonly senderId: string;
      })
    | null;
  /** The read workspace's message channel, with 200 seeded messages. */
  readonly messageChannelId: string;
  /** The read workspace's file channel, with 200 seeded files (none when no client is seeded). */
  readonly fileChannelId: string | null;
  /** The real server, for a setup that writes through the API. */
  readonly serverUrl: string;
  /** A directory of this run, removed at its end. */
  readonly scratchDir: string;
  /** Seconds of load the server is sent in each scenario, warm-ups and rounds together. */
  readonly loadSeconds: number;
  /** One GET to a running target with the `reads` key. */
  get(target: RunningTarget, path: string): Promise<Sample>;
  /** Ids, tokens and the like that setup() leaves for request(). */
  readonly state: Record<string, unknown>;
}

/** Names the scenarios the targets of report.ts refer to. */
export type ScenarioKey =
  | 'me'
  | 'notFound'
  | 'pointRead'
  | 'page'
  | 'deepPage'
  | 'insert'
  | 'installs'
  | 'notify'
  | 'invoicePage'
  | 'invoiceInsert'
  | 'messagePage'
  | 'messageSend'
  | 'filePage'
  | 'upload'
  | 'download';

export interface Scenario {
  readonly key: ScenarioKey;
  name(ctx: BenchContext): string;
  readonly expectedStatus: number;
  /** Also measured against the naive server. */
  readonly naive: boolean;
  /** Also runs with `--clients N` (the directory reads). */
  readonly directory: boolean;
  /** Runs once, after both servers are up and before any measurement. */
  setup?(ctx: BenchContext): Promise<void>;
  /** The request `target` is sent (the bare route is sent the server's), resolved once after setup(). */
  request(ctx: BenchContext, target: RunningTarget): RequestSpec;
}

const readKey = (ctx: BenchContext) => ({ 'x-api-key': ctx.reads.apiKey });

/** 10000 → "10k", 100000 → "100k", 12345 → "12345". */
const clientCount = (n: number) => (n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** The list's largest `limit` (PageQuery in src/lib/schemas.ts): the hop size when paging to depth. */
const MAX_LIMIT = 1000;
/** How deep the deep page starts, as a fraction of the seeded clients. */
const DEEP_FRACTION = 0.9;

/**
 * A real `nextToken` of `target` pointing DEEP_FRACTION into the seeded clients, paging with the
 * largest limit (at most clients/1000 + 1 requests).
 */
async function deepToken(ctx: BenchContext, target: RunningTarget): Promise<string> {
  const depth = Math.floor(ctx.clients * DEEP_FRACTION);
  let token: string | undefined;
  let skipped = 0;
  const maxHops = Math.ceil(depth / MAX_LIMIT) + 1;
  for (let hop = 0; hop < maxHops && skipped < depth; hop++) {
    const limit = Math.min(MAX_LIMIT, depth - skipped);
    const response = await ctx.get(target, `/v1/clients?limit=${limit}${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`);
    if (response.status !== 200)
      throw new Error(`paging the ${target} to depth: status ${response.status}: ${response.text.slice(0, 500)}`);
    const page = JSON.parse(response.text) as { data: unknown[]; nextToken?: string };
    if (!page.nextToken) throw new Error(`paging the ${target} to depth: no nextToken after ${skipped + page.data.length} clients`);
    token = page.nextToken;
    skipped += page.data.length;
  }
  if (!token || skipped !== depth) throw new Error(`paging the ${target} to depth: reached ${skipped} of ${depth} clients`);
  return token;
}

/** The files uploaded and downloaded: 64 KiB of ASCII, so the bare route can send the sampled text as the same bytes. */
const FILE_CONTENT = randomBytes(48 * 1024).toString('base64');
/** Uploads a second the server could take (1,960 measured on the 2-core machine once content of 128 KiB or less was written whole, bench/README.md); past them, 409s show as unexpected. */
const UPLOADS_PER_SECOND = 3000;

/** A JSON call to the server with the writes workspace's key; the parsed answer (it must be a 200). */
async function writeCall(ctx: BenchContext, method: string, path: string, body?: object): Promise<Record<string, string>> {
  if (!ctx.writes) throw new Error(`${method} ${path} needs the writes workspace`);
  const res = await fetch(`${ctx.serverUrl}${path}`, {
    method,
    headers: { 'x-api-key': ctx.writes.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

/** A file channel of the writes workspace's first company. */
async function fileChannel(ctx: BenchContext): Promise<string> {
  ctx.state.fileChannelId ??= (
    await writeCall(ctx, 'POST', '/v1/channels/files', { membershipType: 'company', companyId: ctx.writes?.companyIds[0] })
  ).id;
  return ctx.state.fileChannelId as string;
}

/** The path and query of a signed URL the server built (on PORTAL_URL, which need not be where it listens). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

export const SCENARIOS: readonly Scenario[] = [
  {
    key: 'me',
    name: () => 'GET /v1/me',
    expectedStatus: 200,
    naive: false,
    directory: false,
    request: (ctx) => ({ method: 'GET', path: '/v1/me', headers: readKey(ctx) }),
  },
  {
    key: 'notFound',
    name: () => 'GET /v1/unknown-route (404)',
    expectedStatus: 404,
    naive: false,
    directory: false,
    request: (ctx) => ({ method: 'GET', path: '/v1/unknown-route', headers: readKey(ctx) }),
  },
  {
    key: 'pointRead',
    name: (ctx) => `GET /v1/clients/{id} (${clientCount(ctx.clients)} clients)`,
    expectedStatus: 200,
    naive: true,
    directory: true,
    request: (ctx) => ({
      method: 'GET',
      path: `/v1/clients/${ctx.clientIds[Math.floor(ctx.clientIds.length / 2)]}`,
      headers: readKey(ctx),
    }),
  },
  {
    key: 'page',
    name: (ctx) => `GET /v1/clients?limit=100 (${clientCount(ctx.clients)})`,
    expectedStatus: 200,
    naive: true,
    directory: true,
    request: (ctx) => ({ method: 'GET', path: '/v1/clients?limit=100', headers: readKey(ctx) }),
  },
  {
    key: 'deepPage',
    name: (ctx) => `GET /v1/clients?limit=100 at ${DEEP_FRACTION * 100}% (${clientCount(ctx.clients)})`,
    expectedStatus: 200,
    naive: true,
    directory: true,
    async setup(ctx) {
      // Each server signs its own tokens: each gets the token it issued, for the same position.
      ctx.state.deepTokenServer = await deepToken(ctx, 'server');
      ctx.state.deepTokenNaive = await deepToken(ctx, 'naive');
    },
    request: (ctx, target) => {
      const token = ctx.state[target === 'server' ? 'deepTokenServer' : 'deepTokenNaive'] as string;
      return { method: 'GET', path: `/v1/clients?limit=100&nextToken=${encodeURIComponent(token)}`, headers: readKey(ctx) };
    },
  },
  {
    key: 'installs',
    name: () => 'GET /v1/installs (the 7 core modules)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    request: (ctx) => ({ method: 'GET', path: '/v1/installs', headers: readKey(ctx) }),
  },
  {
    key: 'notify',
    name: () => 'POST /v1/notifications (in product, company to company)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    request: (ctx) => {
      if (!ctx.writes) throw new Error('POST /v1/notifications needs the writes workspace');
      return {
        method: 'POST',
        path: '/v1/notifications',
        headers: { 'x-api-key': ctx.writes.apiKey },
        body: {
          template:
            '{"senderId":"{{v}}","recipientCompanyId":"{{v}}","deliveryTargets":{"inProduct":{"title":"Bench {{i}}","body":"A notification"}}}',
          values: ctx.writes.companyIds,
        },
      };
    },
  },
  {
    key: 'invoicePage',
    name: () => 'GET /v1/invoices?limit=100 (200 invoices)',
    expectedStatus: 200,
    naive: true,
    directory: false,
    request: (ctx) => ({ method: 'GET', path: '/v1/invoices?limit=100', headers: readKey(ctx) }),
  },
  {
    key: 'invoiceInsert',
    name: () => 'POST /v1/invoices (two lines, tax)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    request: (ctx) => {
      if (!ctx.writes) throw new Error('POST /v1/invoices needs the writes workspace');
      return {
        method: 'POST',
        path: '/v1/invoices',
        headers: { 'x-api-key': ctx.writes.apiKey },
        body: {
          template:
            '{"companyId":"{{v}}","lineItems":[{"amount":1999,"quantity":1.5,"description":"Work {{i}}"},{"amount":500,"quantity":2}],"taxPercentage":8.25,"daysUntilDue":14}',
          values: ctx.writes.companyIds,
        },
      };
    },
  },
  {
    key: 'messagePage',
    name: () => 'GET /v1/messages?limit=100 (a channel of 200 messages)',
    expectedStatus: 200,
    naive: true,
    directory: false,
    request: (ctx) => ({ method: 'GET', path: `/v1/messages?channelId=${ctx.messageChannelId}&limit=100`, headers: readKey(ctx) }),
  },
  {
    key: 'filePage',
    name: () => 'GET /v1/files?limit=100 (a channel of 200 files)',
    expectedStatus: 200,
    naive: true,
    directory: false,
    request: (ctx) => {
      if (!ctx.fileChannelId) throw new Error('GET /v1/files needs the seeded file channel');
      return { method: 'GET', path: `/v1/files?channelId=${ctx.fileChannelId}&limit=100`, headers: readKey(ctx) };
    },
  },
  {
    key: 'messageSend',
    name: () => 'POST /v1/messages (a company channel)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    request: (ctx) => {
      if (!ctx.writes) throw new Error('POST /v1/messages needs the writes workspace');
      return {
        method: 'POST',
        path: '/v1/messages',
        headers: { 'x-api-key': ctx.writes.apiKey },
        body: {
          template: `{"channelId":"{{v}}","senderId":"${ctx.writes.senderId}","text":"Bench message {{i}}"}`,
          values: ctx.writes.messageChannelIds,
        },
      };
    },
  },
  {
    key: 'insert',
    name: () => 'POST /v1/clients',
    expectedStatus: 200,
    naive: true,
    directory: false,
    request: (ctx) => {
      if (!ctx.writes) throw new Error('POST /v1/clients needs the writes workspace');
      return {
        method: 'POST',
        path: '/v1/clients',
        headers: { 'x-api-key': ctx.writes.apiKey },
        body: {
          template: '{"email":"bench-{{i}}@example.com","givenName":"Bench","familyName":"Client {{i}}","companyId":"{{v}}"}',
          values: ctx.writes.companyIds,
        },
      };
    },
  },
  {
    key: 'upload',
    name: () => 'PUT a file’s content (64 KiB, local store)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    async setup(ctx) {
      // Each upload URL takes its content once: as many pending files as the server could take in every run.
      const channelId = await fileChannel(ctx);
      const count = ctx.loadSeconds * UPLOADS_PER_SECOND;
      const paths: string[] = [];
      for (let first = 0; first < count; first += 50) {
        const files = await Promise.all(
          Array.from({ length: Math.min(50, count - first) }, (_, k) =>
            writeCall(ctx, 'POST', '/v1/files/file', { channelId, path: `upload-${first + k}.bin` }),
          ),
        );
        paths.push(...files.map((file) => pathOf(file.uploadUrl)));
      }
      const file = join(ctx.scratchDir, 'upload-paths.txt');
      await writeFile(file, paths.join('\n'));
      await writeFile(`${file}.next`, '1'); // the first is the sample's
      ctx.state.uploadPaths = { file, first: paths[0] };
    },
    request: (ctx) => {
      const { file, first } = ctx.state.uploadPaths as { file: string; first: string };
      return {
        method: 'PUT',
        path: first,
        headers: { 'content-type': 'application/octet-stream' },
        content: FILE_CONTENT,
        oneUsePaths: { file, route: '/files/uploads/:id' },
      };
    },
  },
  {
    key: 'download',
    name: () => 'GET /v1/files/{id}/download (64 KiB, local store)',
    expectedStatus: 200,
    naive: false,
    directory: false,
    async setup(ctx) {
      const file = await writeCall(ctx, 'POST', '/v1/files/file', { channelId: await fileChannel(ctx), path: 'download.bin' });
      const put = await fetch(`${ctx.serverUrl}${pathOf(file.uploadUrl)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: FILE_CONTENT,
      });
      if (put.status !== 200) throw new Error(`uploading the file to download: ${put.status} ${await put.text()}`);
      ctx.state.downloadFileId = file.id;
    },
    request: (ctx) => {
      if (!ctx.writes) throw new Error('the download needs the writes workspace');
      return { method: 'GET', path: `/v1/files/${ctx.state.downloadFileId}/download`, headers: { 'x-api-key': ctx.writes.apiKey } };
    },
  },
];
