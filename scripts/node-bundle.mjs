// The one way TypeScript is bundled for Node here (esbuild): the server (scripts/build.mjs) and the tests
// (scripts/test-runner.mjs). ES modules split into shared chunks, source maps beside them; the packages named in
// `bundled` are bundled in, every other package of package.json stays in node_modules.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/** Bundles `entryPoints` into `outdir` (`outbase`: the part of their paths left out, as esbuild's). */
export function bundleForNode({ entryPoints, outdir, outbase, bundled }) {
  const { dependencies, devDependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
  const external = Object.keys({ ...dependencies, ...devDependencies })
    .filter((name) => !bundled.includes(name))
    .flatMap((name) => [name, `${name}/*`]);
  return build({
    entryPoints,
    outdir,
    outbase,
    bundle: true,
    splitting: true,
    chunkNames: '[name]-[hash]',
    external,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}
