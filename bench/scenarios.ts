// The benchmark scenarios. To add one, append to SCENARIOS: setup() may seed data (through the
// API or the CLI) and leave ids in ctx.state for path()/body().

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiResponse {
  readonly status: number;
  /** Raw response text. */
  readonly text: string;
}

/** What a scenario can use: the seeded workspace, the running server, and a scratch space. */
export interface BenchContext {
  /** e.g. http://127.0.0.1:12345 (the real server). */
  readonly serverUrl: string;
  readonly workspaceId: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
  /** Ids and the like that setup() leaves for path()/body(). */
  readonly state: Record<string, unknown>;
  /** One request to the real server, with the workspace key (a JSON body if given). */
  api(method: HttpMethod, path: string, body?: unknown): Promise<ApiResponse>;
  /** Runs `node bin/portal.js <args> --json` on the bench database and returns its parsed output. */
  cli(args: string[]): Promise<unknown>;
  /** Runs `node --import tsx <script> <args>` on the bench database; its one JSON line, parsed. */
  script(path: string, args: string[]): Promise<unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly method: HttpMethod;
  /** Called once, after setup(). */
  path(ctx: BenchContext): string;
  readonly expectedStatus: number;
  /** Request headers, computed once (after setup()). */
  headers?(ctx: BenchContext): Record<string, string>;
  /** JSON text of the request body; called for every request, so a POST may send a fresh body each time. */
  body?(ctx: BenchContext, index: number): string;
  /** Runs once before the scenario is measured (after the previous scenario). */
  setup?(ctx: BenchContext): Promise<void>;
}

const withKey = (ctx: BenchContext) => ({ 'x-api-key': ctx.apiKey });

/** The directory scenarios run on a workspace seeded with this many clients (once, for all of them). */
const SEEDED_CLIENTS = 10_000;

async function seedClients(ctx: BenchContext): Promise<void> {
  if (ctx.state.clientIds) return;
  const seeded = (await ctx.script('bench/seed-clients.ts', [ctx.workspaceId, String(SEEDED_CLIENTS)])) as {
    clientIds: string[];
    companyIds: string[];
  };
  ctx.state.clientIds = seeded.clientIds;
  ctx.state.companyIds = seeded.companyIds;
}

const runId = Date.now().toString(36);

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'GET /v1/me',
    method: 'GET',
    path: () => '/v1/me',
    expectedStatus: 200,
    headers: withKey,
  },
  {
    name: 'GET /v1/unknown-route (404)',
    method: 'GET',
    path: () => '/v1/unknown-route',
    expectedStatus: 404,
    headers: withKey,
  },
  {
    name: 'GET /v1/clients/{id} (10k clients)',
    method: 'GET',
    setup: seedClients,
    path: (ctx) => {
      const ids = ctx.state.clientIds as string[];
      return `/v1/clients/${ids[Math.floor(ids.length / 2)]}`;
    },
    expectedStatus: 200,
    headers: withKey,
  },
  {
    name: 'GET /v1/clients?limit=100',
    method: 'GET',
    setup: seedClients,
    path: () => '/v1/clients?limit=100',
    expectedStatus: 200,
    headers: withKey,
  },
  {
    name: 'POST /v1/clients (+ audit entry)',
    method: 'POST',
    setup: seedClients,
    path: () => '/v1/clients',
    expectedStatus: 200,
    headers: withKey,
    body: (ctx, i) =>
      JSON.stringify({
        email: `bench-${runId}-${i}@example.com`,
        givenName: 'Bench',
        familyName: `Client ${i}`,
        companyId: (ctx.state.companyIds as string[])[i % 100],
      }),
  },
];
