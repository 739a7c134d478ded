import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { injectOrStream } from './helpers/event-stream.js';
import { APP_ID, createClient, createCompany, createTestInternalUser, defineCustomField, sessionKeyFor } from './helpers/factories.js';
import { BACKENDS, TEST_ADMIN_TOKEN, adminHarness } from './helpers/harness.js';
import { type JsonSchema, hostileString, invalidValue, resolverOf, validValue } from './helpers/schema-arbitraries.js';

/**
 * Rule (issue 10): whatever a caller sends to any operation of /openapi.json, the answer is never a 5xx,
 * its status is one the document lists for that operation, its JSON body matches the schema documented
 * for that status, and it carries X-Request-Id. Operations are read from the document, so routes added
 * later are walked without being named here. Inputs are generated from the document's schemas (valid
 * ones, to reach the handlers, and mutated ones), as different principals. Seeded: FUZZ_SEED=<n>
 * replays a run; a failure prints its seed, path and the request. FUZZ_SECONDS bounds the run per backend.
 */

const FUZZ_SECONDS = Number(process.env.FUZZ_SECONDS ?? 45);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Operation {
  method: string;
  path: string;
  pathParams: Record<string, JsonSchema>;
  query: Record<string, JsonSchema>;
  headers: Record<string, JsonSchema>;
  body: JsonSchema | undefined;
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface OperationObject {
  parameters?: { in: string; name: string; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses: Operation['responses'];
}

function operationsOf(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = (where: string) =>
        Object.fromEntries((op.parameters ?? []).filter((p) => p.in === where).map((p) => [p.name, p.schema]));
      return {
        method: method.toUpperCase(),
        path,
        pathParams: params('path'),
        query: params('query'),
        headers: params('header'),
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses,
      };
    }),
  );
}

type Principal = 'workspaceKey' | 'appKey' | 'session' | 'none';

interface FuzzRequest {
  principal: Principal;
  pathValues: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  sendBody: boolean;
  idempotencyKey: string | undefined;
}

/** A request for the operation: every part valid, or one part (or more) broken. */
function requestsFor(op: Operation, doc: OpenApiDoc, ids: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const resolve = resolverOf(doc);
  const pathValue = (schema: JsonSchema) =>
    fc
      .oneof({ weight: 4, arbitrary: validValue(schema, resolve, ids).map(String) }, { weight: 1, arbitrary: hostileString })
      // Not empty, and not a dot segment: a URL parser (light-my-request's, any client's) removes `.` and `..`, even
      // percent-encoded, before the request is sent, so the request would name another path than the operation's.
      .filter((v) => v.length > 0 && v !== '.' && v !== '..');
  const pathValues = fc.record(Object.fromEntries(Object.entries(op.pathParams).map(([name, schema]) => [name, pathValue(schema)])));
  const queryObject: JsonSchema = { type: 'object', properties: op.query, additionalProperties: false };
  const query = fc.oneof(
    { weight: 4, arbitrary: validValue(queryObject, resolve, ids) as fc.Arbitrary<Record<string, unknown>> },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(op.query), 'x'), fc.string({ maxLength: 8 })), hostileString, {
        maxKeys: 3,
      }),
    },
  );
  const body = op.body
    ? fc.oneof({ weight: 3, arbitrary: validValue(op.body, resolve, ids) }, { weight: 2, arbitrary: invalidValue(op.body, resolve, ids) })
    : fc.jsonValue({ maxDepth: 2 });
  return fc.record({
    principal: fc.constantFrom<Principal>('workspaceKey', 'workspaceKey', 'workspaceKey', 'appKey', 'appKey', 'session', 'session', 'none'),
    pathValues,
    query: query as fc.Arbitrary<Record<string, unknown>>,
    body,
    sendBody: op.body
      ? fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
      : fc.boolean().map((b) => b && Math.random() < 0.1),
    idempotencyKey:
      op.method === 'POST'
        ? fc.option(fc.oneof(fc.constantFrom('k1', 'k2'), fc.string({ maxLength: 300 })), { nil: undefined })
        : fc.constant(undefined),
  });
}

/** Every byte of the text's UTF-8 (a lone surrogate becomes U+FFFD, as on the wire) percent-encoded. */
const percentEncoded = (text: string) => [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

function injectOptions(op: Operation, request: FuzzRequest, credentials: Record<Principal, Record<string, string>>): InjectOptions {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => percentEncoded(request.pathValues[name] ?? ''));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query)) {
    if (value !== undefined) search.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const query = search.toString();
  const headers: Record<string, string> = op.path.startsWith('/admin')
    ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    : { ...credentials[request.principal] };
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
  const options: InjectOptions = { method: op.method as InjectOptions['method'], url: query ? `${path}?${query}` : path, headers };
  if (request.sendBody && request.body !== undefined) {
    headers['content-type'] = 'application/json';
    options.payload = JSON.stringify(request.body);
  }
  return options;
}

for (const backend of BACKENDS) {
  describe(`fuzzing every operation of /openapi.json [${backend}]`, () => {
    test('never a 5xx; every status documented for its operation; every JSON body matching its schema; X-Request-Id always', async (t) => {
      const h = await adminHarness(t, backend);
      const ws = await h.workspace('Fuzz', 100_000_000);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const company = await createCompany(h, ws.apiKey, { name: 'Fuzz Co' });
      const client = await createClient(h, ws.apiKey, { email: 'ada@fuzz.test', givenName: 'Ada', familyName: 'L', companyId: company.id });
      const user = await createTestInternalUser(h, ws.workspaceId, { email: 'sam@fuzz.test', givenName: 'Sam', familyName: 'S' });
      const field = await defineCustomField(h, ws.workspaceId, {
        entity: 'client',
        key: 'tier',
        type: 'multiSelect',
        options: ['Gold', 'Silver'],
      });
      const session = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const ids = [ws.workspaceId, company.id, client.id, user.id, field.id, ...field.options.map((o) => o.id)];
      const credentials: Record<Principal, Record<string, string>> = {
        workspaceKey: { 'x-api-key': ws.apiKey },
        appKey: { 'x-api-key': app.apiKey },
        session: { 'x-api-key': session },
        none: {},
      };

      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDoc;
      const operations = operationsOf(doc);
      assert.ok(operations.length >= 20, `the document lists the operations (${operations.length})`);
      const ajv = new Ajv.default({ strict: false, allErrors: false });
      addFormats.default(ajv);
      const validators = new Map<string, ValidateFunction>();
      const validatorFor = (schema: JsonSchema, key: string) => {
        let validate = validators.get(key);
        if (!validate) {
          validate = ajv.compile({ ...schema, components: doc.components });
          validators.set(key, validate);
        }
        return validate;
      };

      const statuses = new Map<number, number>();
      let requests = 0;
      const budgetMs = (FUZZ_SECONDS * 1000) / operations.length;
      t.diagnostic(`seed ${SEED} (FUZZ_SEED=${SEED} replays), ${operations.length} operations, ${Math.round(budgetMs)} ms each`);
      for (const op of operations) {
        const property = fc.asyncProperty(requestsFor(op, doc, ids), async (request) => {
          const options = injectOptions(op, request, credentials);
          // An event stream is read up to its first event (it never ends by itself), then left.
          const res = await injectOrStream(h.app, options);
          requests++;
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const what = `${op.method} ${op.path}: ${options.method} ${options.url} ${String(options.payload ?? '').slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          assert.ok(res.statusCode < 500, `no 5xx: ${what}`);
          const documented = op.responses[String(res.statusCode)];
          assert.ok(documented, `status documented: ${what}`);
          assert.match(String(res.headers['x-request-id'] ?? ''), /\S/, `X-Request-Id: ${what}`);
          const schema = documented.content?.['application/json']?.schema;
          if (schema && res.body.length > 0) {
            const validate = validatorFor(schema, `${op.method} ${op.path} ${res.statusCode}`);
            assert.ok(validate(res.json()), `body matches its schema (${ajv.errorsText(validate.errors)}): ${what}`);
          }
        });
        const out = await fc.check(property, {
          seed: SEED,
          numRuns: 1_000_000,
          interruptAfterTimeLimit: budgetMs,
          markInterruptAsFailure: false,
          includeErrorInReport: true,
        });
        if (out.failed && out.counterexample !== null) throw new Error(fc.defaultReportMessage(out));
        // fast-check calls a run its time limit stopped before the first request a failure: that is the machine's
        // load, not the server's answer, so the operation is asked once without a limit.
        if (out.numRuns === 0) await fc.assert(property, { seed: SEED, numRuns: 1, includeErrorInReport: true });
      }
      const fiveHundreds = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
      t.diagnostic(`${requests} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}; 5xx: ${fiveHundreds}`);
      assert.ok(requests > operations.length * 5, `enough requests per operation (${requests})`);
    });
  });
}
