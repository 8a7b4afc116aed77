// Benchmark: ok() against one plain JSON.stringify of the same payload.
// Usage: npm run bench:envelope   (node --import tsx scripts/bench/envelope.ts)
// Times are medians; "ratio" divides the medians, "ratio of minima" the fastest run of each side, which
// is the steadier figure when other processes share the cores.
// Target: on 10 MB payloads ok() costs at most 3× one JSON.stringify, i.e. it never re-serialises the
// whole body per probe. "serialisations" counts JSON.stringify calls over a whole envelope or a skeleton
// (including the final check of small results); "serialised" is the characters they produced, as a
// multiple of the payload's own size; "items" counts list items sized one by one (each at most once).
import { cpus, loadavg } from 'node:os';
import { okWithStats } from '../../shared/envelope/trim.ts';

type Payload = Record<string, unknown>;

const SIZES = [
  ['10 KB', 10_000],
  ['100 KB', 100_000],
  ['1 MB', 1_000_000],
  ['10 MB', 10_000_000],
] as const;

const ASCII_WORDS = [
  'resolve',
  'symbol',
  'handler',
  'graph',
  'index',
  'query',
  'export',
  'module',
  'token',
  'budget',
];
const CJK_WORDS = ['解析', '符号', '处理器', '图谱', '索引', '查询', '导出', '模块', '令牌', '预算'];

function words(pool: readonly string[], count: number, seed: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(pool[(seed * 31 + i * 7) % pool.length]!);
  return out.join(pool === CJK_WORDS ? '' : ' ');
}

/** Search-style results under a trimmable key: many small objects. */
function listHeavy(target: number, pool: readonly string[]): Payload {
  const results: unknown[] = [];
  let size = 0;
  for (let i = 0; size < target; i++) {
    const row = {
      uid: `code:function:src/mod_${i % 97}/file_${i % 13}.ts::${words(pool, 2, i)}_${i}`,
      kind: 'function',
      line: i % 4000,
      score: Math.round(((i * 7919) % 1000) / 10) / 100,
      snippet: words(pool, 12, i),
    };
    size += JSON.stringify(row).length + 1;
    results.push(row);
  }
  return { query: words(pool, 3, 1), results, count: results.length, total_count: results.length };
}

/** Documents under a key the list rung does not own: only the string safety net can shrink them. */
function stringHeavy(target: number, pool: readonly string[]): Payload {
  const documents: unknown[] = [];
  let size = 0;
  for (let i = 0; size < target; i++) {
    const doc = { path: `docs/section_${i}.md`, title: words(pool, 4, i), body: words(pool, 400, i) };
    size += JSON.stringify(doc).length + 1;
    documents.push(doc);
  }
  return { documents, scope: 'repo' };
}

/** A graph export: `{nodes, edges}` takes the 5,000,000 budget and the coherent top-K trim. */
function graphExport(target: number, pool: readonly string[]): Payload {
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  let size = 0;
  for (let i = 0; size < target; i++) {
    const node = {
      id: `code:function:src/mod_${i % 97}.ts::${words(pool, 2, i)}_${i}`,
      kind: 'function',
      label: words(pool, 3, i),
    };
    nodes.push(node);
    size += JSON.stringify(node).length + 1;
    for (let j = 0; j < 2; j++) {
      const edge = {
        source: (node as { id: string }).id,
        target: (nodes[(i * 7919 + j * 104_729) % nodes.length] as { id: string }).id,
        type: 'calls',
      };
      edges.push(edge);
      size += JSON.stringify(edge).length + 1;
    }
  }
  return { nodes, edges };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Timing {
  median: number;
  min: number;
}

/**
 * Timings of `a` and `b`, run alternately so a change in the machine's load (other processes share these
 * two cores) hits both sides alike. The minimum is the least disturbed run of each.
 */
function timePair(a: () => unknown, b: () => unknown, runs: number): [Timing, Timing] {
  a(); // warm-up: JIT and the payload's hidden classes
  b();
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    a();
    samplesA.push(performance.now() - start);
    start = performance.now();
    b();
    samplesB.push(performance.now() - start);
  }
  return [
    { median: median(samplesA), min: Math.min(...samplesA) },
    { median: median(samplesB), min: Math.min(...samplesB) },
  ];
}

const rows: string[][] = [];
const header = [
  'payload',
  'size',
  'chars',
  'ok() ms',
  'serialisations',
  'serialised',
  'items',
  'rungs',
  'JSON.stringify ms',
  'ratio',
  'ratio of minima',
];

const measure = (label: string, sizeName: string, payload: Payload, runs: number, applyBudget = true) => {
  const chars = JSON.stringify(payload).length;
  const options = { meta: { layer: 'graph' as const }, applyBudget };
  const [stringify, okTime] = timePair(
    () => JSON.stringify(payload),
    () => okWithStats(payload, options),
    runs,
  );
  const { stats } = okWithStats(payload, options);
  rows.push([
    label,
    sizeName,
    String(chars),
    okTime.median.toFixed(2),
    String(stats.serialisations),
    `${(stats.serialisedChars / chars).toFixed(3)}×`,
    String(stats.itemsMeasured),
    stats.rungs.join('+') || '-',
    stringify.median.toFixed(2),
    (okTime.median / stringify.median).toFixed(2),
    (okTime.min / stringify.min).toFixed(2),
  ]);
};
const runsFor = (target: number) => (target >= 10_000_000 ? 9 : target >= 1_000_000 ? 15 : 41);

for (const [kindName, build] of [
  ['list-heavy', listHeavy],
  ['string-heavy', stringHeavy],
] as const) {
  for (const [scriptName, pool] of [
    ['ASCII', ASCII_WORDS],
    ['CJK', CJK_WORDS],
  ] as const) {
    for (const [sizeName, target] of SIZES) {
      measure(`${kindName} ${scriptName}`, sizeName, build(target, pool), runsFor(target));
    }
  }
}
// For context: the graph tier, and the browser opt-out (one serialisation, no trimming).
for (const [sizeName, target] of SIZES.slice(2)) {
  measure('graph export ASCII', sizeName, graphExport(target, ASCII_WORDS), runsFor(target));
}
measure('opt-out list-heavy ASCII', '10 MB', listHeavy(10_000_000, ASCII_WORDS), 9, false);
measure('opt-out list-heavy CJK', '10 MB', listHeavy(10_000_000, CJK_WORDS), 9, false);

const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${new Date().toISOString()}`,
);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
