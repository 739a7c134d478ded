#!/usr/bin/env node
// Transpiles src/ to dist/ with esbuild (about a tenth of a second): the server then runs as plain
// JavaScript, without tsx's loader thread (some 50 MB less memory). Type-checking is `npm run typecheck`.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const entryPoints = readdirSync('src', { recursive: true })
  .map((file) => join('src', String(file)))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
