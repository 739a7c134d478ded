// Spectral's lint of the API description (/openapi.json), run by test/openapi-lint.test.ts. From outside, on a running
// service, in this folder: `curl -so openapi.json http://localhost:3000/openapi.json`, then
// `npx @stoplight/spectral-cli lint openapi.json --ruleset .spectral.mjs`. The OpenAPI ruleset's recommended rules, one
// switched off with its reason; the overrides keep, on purpose, paths that are the official SDK's (@assembly-js/node-sdk,
// DefaultService), which apps call as they are.
import { oas } from '@stoplight/spectral-rulesets';

export default {
  extends: [[oas, 'recommended']],
  rules: {
    // The document describes one deployment of a self-hosted service: it has no contact of its own to publish.
    'info-contact': 'off',
  },
  // Each `files` entry: the document, then a JSON pointer into it, its braces percent-encoded as Spectral compares them.
  overrides: [
    {
      // createFile posts to /v1/files/{fileType} (file, folder or link), retrieveFile and deleteFile use
      // /v1/files/{id}: the two never share a method (POST against GET and DELETE), so the router tells them apart.
      files: ['openapi.json#/paths/~1v1~1files~1%7Bid%7D'],
      rules: { 'path-params': 'off' },
    },
    {
      // putV1FilesIdPermissions calls /v1/files/{id}/permissions/ with its trailing slash.
      files: ['openapi.json#/paths/~1v1~1files~1%7Bid%7D~1permissions~1'],
      rules: { 'path-keys-no-trailing-slash': 'off' },
    },
  ],
};
