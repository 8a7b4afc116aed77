// The rewrite of syntax newer than the grammar (server/graph/extract/ts-dialect.ts) on hostile file
// shapes: its work must grow with the file, not with its square. Each shape is rewritten at 256 KB and
// 1 MB (the walker's limit), as TypeScript and as JavaScript; the baseline, in the same run, is 1 MB of
// this repository's own TypeScript (its server/ sources repeated), which the rewrite reads the same way.
//
//   node --import tsx scripts/bench/dialect.ts [--runs N]
//
// `x4 ratio` is the 1 MB time over the 256 KB time: about 4 for linear work, 16 for quadratic.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { rewriteModernSyntax } from '../../server/graph/extract/ts-dialect.ts';
import { fmt, table } from './lib.ts';

const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 3;

const SHAPES: Record<string, string> = {
  'comma, open comment': ',/*',
  'semicolon, open comment': ';/*',
  'line comment, no newline': 'a//',
  'member end, open comment': '>\n/*',
  'export attributes, no brace': "from 'a' with {",
  'global after line comments': '//;global{',
  'global after block ends': '*/;global{',
  'call signatures one a line': 'a\n  <T>(x: T)//\n',
  variance: '<in out T, ',
  'generic function arguments': 'f<<T,',
  backslashes: '\\',
};

function repoSource(): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts')) out.push(readFileSync(full, 'utf8'));
    }
  };
  walk(new URL('../../server/', import.meta.url).pathname);
  return out.join('\n');
}

/** Median milliseconds of RUNS rewrites of `text` as TypeScript and as JavaScript. */
function time(text: string): number {
  const ms: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    rewriteModernSyntax(text, { ts: true, dts: true });
    rewriteModernSyntax(text, {});
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
}

const sized = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const MB = 1024 * 1024;

const base = repoSource();
const baseline = time(sized(base, MB));
const rows: (string | number)[][] = [
  ['this repository (baseline)', fmt(time(sized(base, MB / 4)), 1), fmt(baseline, 1), '', '1.0'],
];
for (const [name, unit] of Object.entries(SHAPES)) {
  const quarter = time(sized(unit, MB / 4));
  const whole = time(sized(unit, MB));
  rows.push([
    name,
    fmt(quarter, 1),
    fmt(whole, 1),
    fmt(whole / Math.max(quarter, 0.1), 1),
    fmt(whole / baseline, 1),
  ]);
}
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(`node ${process.version}, ${RUNS} runs each (medians), load average ${load}`);
console.log(table(['shape', '256 KB ms', '1 MB ms', 'x4 ratio', '1 MB vs baseline'], rows));
