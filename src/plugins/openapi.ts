import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { policyOf } from '../lib/policy.js';
import { pageSecurityHeaders } from './page-headers.js';

const DESCRIPTION = `Self-hosted Portal Platform API.

**Authentication.** Send an API key in \`X-API-KEY\` (\`<key>\` or \`<workspaceId>/<key>\`), or a bearer token from
\`POST /v1/token\` as \`Authorization: Bearer <token>\` (an app key's rights, one hour, dies with its key). An app acts for
an end user with \`X-API-KEY: <workspaceId>/<appKey>/<tokenId>\`, the \`tokenId\` of a session token minted on the admin
surface for that app key (refused once expired, revoked, or its user deleted); session requests are exempt from the daily
quota and have the end user's own burst bucket. Missing, unknown, revoked or expired credentials are 401s. A revocation
(or a quota change) applies at once on the server process that made it and within one second on every other
(each process answers a credential it verified in the last second from memory: \`AUTH_CACHE_TTL_MS\`).

**Admin surface.** \`/admin\` routes take \`Authorization: Bearer <PORTAL_ADMIN_TOKEN>\`; without that setting the surface
does not exist (every \`/admin\` path is a 404).

**Errors.** Every error body is \`{code, message, data}\`; a 400's \`data\` lists each failing field as
\`{path, message}\` with dotted paths (\`body.email\`, \`query.limit\`). Unknown body and query fields are
400s, so a typo never passes silently. A method a path does not have is a 405 \`method_not_allowed\` whose \`Allow\` header
lists the path's methods. Every response carries \`X-Request-Id\` (an incoming one is kept).

**Retries.** Every POST takes an \`Idempotency-Key\` header (up to 255 characters): the first answer (status and body,
5xx included) is kept 24 hours per key *and credential* (an API key; one bearer token; a session's end user through its
app key), and a retry by the same credential with the same key and request gets it again with
\`Idempotent-Replayed: true\`, without running twice. Another caller using the same key has its own and never gets this
answer. Answers are stored sealed (AES-256-GCM) under a key derived from the credential's secret, which the service does
not keep: an answer carrying a secret (\`POST /v1/token\`'s token, an \`inviteUrl\`) is readable by its own caller only. The same key with another method, URL or body is a 422
\`idempotency_key_reused\`; a retry while the first is still running is a 409 \`idempotency_key_in_use\`. A request that
fails authentication, limits, permissions or validation keeps nothing, so a corrected retry may reuse the key.

**Lists.** \`{data, nextToken}\`, newest first; \`limit\` 1–1000 (default 100); \`nextToken\` is given only when
another page exists, and is bound to its workspace, list and filters (any other use is a 400).

**Limits.** Burst buckets per key and method class (GET/HEAD 20 at 100/s; others 5 at 20/s): 429
\`rate_limit_exceeded\` with Retry-After. Daily quota per workspace (only 2xx count): 429 \`{"error":"quota limit reached"}\`.
Every authenticated response carries X-RateLimit-Limit, X-RateLimit-Remaining, X-Service-Quota-Limit,
X-Service-Quota-Remaining and X-Service-Quota-Reset. Failed authentication is limited per client IP (30 a minute).

**Choices where the specification is silent.** A client created without \`companyId\` gets a new placeholder
company named after it; deleting a company moves each client with no other company into a new placeholder.
\`PUT /clients/{id}\` without \`companyId\` keeps the client's own placeholder, else makes one. API-created clients
have \`creationMethod: internalUser\`. Server-managed fields sent in a body are a 400 ("is read-only"); \`email\`
cannot be changed. Company names and client emails are unique per workspace, case-insensitively (409).
Custom fields: \`""\`, \`[]\` or \`null\` clears one; multiSelect takes option ids or keys and stores ids.`;

/**
 * The reference page's policy, the console's (src/plugins/console.ts) but for data: images (the UI's icons in
 * its CSS and its logo) and the one `<style>` element the UI renders, allowed by its hash alone: the Swagger UI
 * it serves has no other inline script or style and needs no eval (checked in Chromium, test/console.test.ts). Not the
 * plugin's `staticCSP: true`, which allows styles from any https: origin and framing by this origin, and adds
 * upgrade-insecure-requests (the page's own files refused when served over plain http); its list of inline
 * hashes (static/csp.json) is empty in this version anyway.
 */
const DOCS_HEADERS = pageSecurityHeaders({
  styleSrc: "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  imgSrc: 'data:',
});

/**
 * Every tag an operation may carry, in the order the reference page shows them, each with what it groups: the
 * linters (test/openapi-lint.test.ts) refuse an operation whose tag is not declared here.
 */
const TAGS = [
  { name: 'operations', description: 'Health checks for load balancers and orchestrators: public, never limited.' },
  { name: 'me', description: 'Who the credentials of the request are: the key, token or session and its workspace.' },
  { name: 'token', description: 'Bearer tokens minted from an app API key: one hour, the key’s rights, revoked with it.' },
  { name: 'workspaces', description: 'The workspace the credentials belong to.' },
  { name: 'clients', description: 'Clients: the people a workspace serves, each in one or more companies.' },
  { name: 'companies', description: 'Companies: groups of clients (a client created without one gets a placeholder company).' },
  { name: 'internal users', description: 'Internal users (the workspace’s staff) and their notification preferences.' },
  { name: 'custom-fields', description: 'Custom field definitions of clients and companies, and the options of select fields.' },
  { name: 'installs', description: 'Apps installed in the workspace: the sidebar, manual apps’ connections, notification settings.' },
  { name: 'notifications', description: 'Notifications to clients and internal users: in product, by e-mail, or both.' },
  { name: 'audit log', description: 'What happened in the workspace, newest first; apps record their own events.' },
  { name: 'webhooks', description: 'App events, delivered to the webhook endpoints subscribed to them.' },
  { name: 'billing', description: 'Products, prices, templates, invoices, payments, cards on file, refunds and subscriptions.' },
  { name: 'test clocks', description: 'A sandbox workspace’s clock, moved forward to run what time drives without waiting.' },
  { name: 'messages', description: 'Message channels (a client, a group of clients, a company) and their messages.' },
  { name: 'tasks', description: 'Tasks with subtasks, assigned to clients or internal users, and task templates.' },
  { name: 'notes', description: 'Internal notes on clients and companies, never shown to clients.' },
  { name: 'files', description: 'File channels and their files, folders and links; content through signed upload and download URLs.' },
  { name: 'forms', description: 'Forms, and the responses requested of clients.' },
  { name: 'contracts', description: 'Contract templates, and contracts sent to clients for signing.' },
  { name: 'app-api', description: "An app's own API resources as it declares them, and the secret its builder signs with." },
  {
    name: 'sign-in',
    description:
      'People signing in to their workspace’s portal (/portal/{workspaceId}/api): passwords, e-mailed links, TOTP, invites. Cookie sessions for browsers; every change carries `X-Portal-Request: 1`.',
  },
  { name: 'admin', description: 'The operator’s surface (`Authorization: Bearer <PORTAL_ADMIN_TOKEN>`): present only with that setting.' },
];

/** A /v1 operation's credentials when a person signed in to the portal may call it too. */
const PERSON_SECURITY: Record<string, string[]>[] = [{ apiKey: [] }, { bearerToken: [] }, { portalSession: [] }];

/** OpenAPI 3.1 document generated from the route schemas, at /openapi.json, and a reference page at /docs. */
export default fp(
  async function openapi(app: FastifyInstance) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Portal Platform API', version: '1.0.0', description: DESCRIPTION },
        // Where this service answers (PORTAL_URL): generated clients and the reference page's "Try it out" call it there.
        servers: [{ url: app.ctx.config.portalUrl, description: 'this service (PORTAL_URL)' }],
        // The admin surface's tag and security scheme only where it exists (PORTAL_ADMIN_TOKEN): nothing declared goes unused.
        tags: app.ctx.config.adminToken ? TAGS : TAGS.filter((tag) => tag.name !== 'admin'),
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'workspace or app API key' },
            bearerToken: { type: 'http', scheme: 'bearer', description: 'token from POST /v1/token (one hour, an app key’s rights)' },
            portalSession: {
              type: 'apiKey',
              in: 'cookie',
              name: 'portal_session',
              description:
                'a signed-in person’s session: the sign-in API, and the /v1 operations a person may call, at /portal/{workspaceId}/v1/… ' +
                '(the cookie’s path), as that person, with `X-Portal-Request: 1` on every change',
            },
            ...(app.ctx.config.adminToken
              ? { adminToken: { type: 'http', scheme: 'bearer', description: 'PORTAL_ADMIN_TOKEN: the /admin surface only' } }
              : {}),
          },
        },
        security: [{ apiKey: [] }, { bearerToken: [] }],
      },
      refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
      // Every operation says what it allows (swagger copies a schema's `x-` keys into the operation).
      // and a /v1 operation a person may call lists the portal's cookie among its credentials.
      transform: ({ schema, url, route }) => {
        const policy = policyOf(route.config?.policy);
        const person = url.startsWith('/v1/') && policy.portal && schema?.security === undefined ? { security: PERSON_SECURITY } : {};
        return { schema: { ...schema, ...person, 'x-policy': policy } as unknown as typeof schema, url };
      },
    });
    // A scope of its own: the headers cover every route of the UI, its static files included, and nothing else.
    await app.register(async function docsPage(scope) {
      scope.addHook('onSend', async function docsHeaders(_request, reply, payload) {
        reply.headers(DOCS_HEADERS);
        return payload;
      });
      // Tags start collapsed: Swagger UI stops rendering (every tag folds, silently) once more than about 128
      // operations are open at once, and the API with its admin surface has more.
      await scope.register(swaggerUi, { routePrefix: '/docs', logLevel: 'warn', uiConfig: { docExpansion: 'none' } });
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
