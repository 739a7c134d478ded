#!/usr/bin/env node
// The `portal` command. TypeScript runs through tsx (esbuild, cached): no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
