// `node --import tsx bench/profile.ts <file.cpuprofile> [--focus name,name…] [--last seconds] [--top n]`: where a
// server's CPU went, from a V8 CPU profile (`BENCH_PROFILE=<dir> npm run bench` writes the server's, see
// bench/README.md). Prints the time spent in each part of the code (self time, by file) and, for each function named
// in --focus, the time with it on the stack (inclusive: what it and everything it calls cost). --last keeps only the
// samples of the profile's last seconds (a one-scenario run's measured window, without its setup); --top lists the
// functions of most self time.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  endTime: number;
}

/** The parts of the code a request goes through, matched on the file's URL (first match wins). */
const PARTS: readonly (readonly [string, RegExp])[] = [
  ['sqlite (statements, B-tree and index upkeep, commit)', /better-sqlite3/],
  ['kysely (query building, compiling, driver)', /node_modules\/kysely/],
  ['validation (ajv)', /node_modules\/ajv/],
  ['serialization (fast-json-stringify)', /fast-json-stringify/],
  ['fastify', /node_modules\/(fastify|@fastify|find-my-way|light-my-request|avvio|fastq|pino)/],
  ['other dependencies', /node_modules/],
  ['auth (credentials, cache)', /\/(plugins\/auth|lib\/credential-cache|modules\/credentials)/],
  ['limits and quota', /\/(plugins\/limits|limits)\//],
  ['idempotency', /idempotency/],
  ['audit entries', /\/audit\//],
  ['unit of work, prepared statements, storage glue', /\/db\//],
  ['custom fields', /custom-fields/],
  ['other plugins (errors, guards, metrics, headers)', /\/plugins\//],
  ['modules (services, repositories, routes)', /\/modules\//],
  ['the rest of src (lib, app)', /\/(src|dist)\//],
  ['node: http, net, streams, timers', /^node:/],
];

function partOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 and native, unattributed';
    // Code compiled at run time: ajv's validators and fast-json-stringify's serializers are anonymous.
    return `native or generated: ${functionName || '(anonymous)'}`;
  }
  return PARTS.find(([, pattern]) => pattern.test(url))?.[0] ?? 'elsewhere';
}

function main(argv: string[]): void {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { focus: { type: 'string' }, last: { type: 'string' }, top: { type: 'string' } },
    allowPositionals: true,
  });
  const lastUs = values.last === undefined ? Infinity : Number(values.last) * 1e6;
  const top = values.top === undefined ? 0 : Number(values.top);
  if (positionals.length !== 1 || !(lastUs > 0) || !Number.isInteger(top) || top < 0) {
    process.stderr.write('usage: node --import tsx bench/profile.ts <file.cpuprofile> [--focus name,name…] [--last seconds] [--top n]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Each sample's time, from the end back: the deltas after it, summed.
  const selfUs = new Map<number, number>();
  let before = 0;
  for (let i = profile.samples.length - 1; i >= 0 && before <= lastUs; i--) {
    const delta = profile.timeDeltas[i] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
    before += delta;
  }
  let busyUs = 0;
  const parts = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const part = partOf(byId.get(id) as ProfileNode);
    parts.set(part, (parts.get(part) ?? 0) + us);
    if (part !== 'idle') busyUs += us;
  }
  const percent = (us: number) => `${((100 * us) / busyUs).toFixed(1).padStart(5)} %`;
  process.stdout.write(`busy: ${(busyUs / 1e6).toFixed(2)} s of CPU (idle left out)\n\nself time by part:\n`);
  for (const [part, us] of [...parts].filter(([part]) => part !== 'idle').sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`${percent(us)}  ${part}\n`);
  }

  if (top > 0) {
    process.stdout.write(`\nthe ${top} functions of most self time:\n`);
    const byFunction = new Map<string, number>();
    for (const [id, us] of selfUs) {
      const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
      if (functionName === '(idle)') continue;
      const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/(src|dist)\//, '')}:${lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
    for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${percent(us)}  ${name}\n`);
  }

  const focus = values.focus?.split(',').filter(Boolean) ?? [];
  if (focus.length === 0) return;
  process.stdout.write('\ninclusive time (the function and what it calls; a recursion counted once):\n');
  for (const name of focus) {
    let us = 0;
    for (const [id, self] of selfUs) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if ((byId.get(at) as ProfileNode).callFrame.functionName === name) {
          us += self;
          break;
        }
      }
    }
    process.stdout.write(`${percent(us)}  ${name}\n`);
  }
}

main(process.argv.slice(2));
