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
];
