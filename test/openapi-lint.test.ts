// Issue 29 (11): the API description is one the ecosystem's tools accept. /openapi.json, with the admin surface on and
// off, linted by the two common linters with their recommended rules and this repository's configuration (redocly.yaml and
// .redocly.lint-ignore.yaml, .spectral.mjs: the few paths the official SDK imposes are kept there, each with its
// reason), as `redocly lint openapi.json` and `spectral lint openapi.json` would from outside: no problem at all.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import parsers from '@stoplight/spectral-parsers';
import { TEST_ADMIN_TOKEN, harness } from './helpers/harness.js';

/** Where the configuration files expect the document: openapi.json at the repository's root. */
const DOCUMENT = resolve('openapi.json');

/** The document as served with the admin surface on (every operation) and off (the default). */
const SURFACES: { name: string; env: Record<string, string> }[] = [
  { name: 'with the admin surface', env: { PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN } },
  { name: 'without the admin surface', env: {} },
];

async function theDocument(t: Parameters<typeof harness>[0], env: Record<string, string>): Promise<string> {
  const h = await harness(t, 'sqlite', { env: { ...env, PORTAL_URL: 'https://portal.acme.test' } });
  const res = await h.app.inject('/openapi.json');
  assert.equal(res.statusCode, 200);
  return res.body;
}

for (const { name, env } of SURFACES) {
  test(`Redocly's recommended rules, ${name}: no error and no warning (redocly.yaml, .redocly.lint-ignore.yaml)`, async (t) => {
    const source = await theDocument(t, env);
    const config = await loadConfig({ configPath: resolve('redocly.yaml') });
    const problems = await lintFromString({ source, absoluteRef: DOCUMENT, config });
    const found = problems
      .filter((problem) => !problem.ignored)
      .map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer})`);
    assert.deepEqual(found, []);
    // The ignores are used: each still matches the problem it keeps (an ignore left behind would hide nothing).
    assert.deepEqual(problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`).sort(), [
      'no-ambiguous-paths #/paths/~1v1~1files~1{id}',
      'no-identical-paths #/paths/~1v1~1files~1{id}',
      'no-path-trailing-slash #/paths/~1v1~1files~1{id}~1permissions~1',
      'operation-2xx-response #/paths/~1portal~1{workspaceId}~1api~1oidc~1{provider}~1start/get/responses',
    ]);
  });

  test(`Spectral's OpenAPI ruleset (recommended), ${name}: no error and no warning (.spectral.mjs)`, async (t) => {
    const source = await theDocument(t, env);
    const { Spectral, Document, Ruleset } = spectralCore;
    const spectral = new Spectral();
    const rulesetFile = resolve('.spectral.mjs');
    const { default: definition } = await import(pathToFileURL(rulesetFile).href);
    spectral.setRuleset(new Ruleset(definition, { source: rulesetFile }));
    const results = await spectral.run(new Document(source, parsers.Json, DOCUMENT));
    assert.deepEqual(
      results.map((result) => `${result.severity} ${result.code}: ${result.message} (${result.path.join('.')})`),
      [],
    );
  });
}
