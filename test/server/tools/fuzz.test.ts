// Every tool, over MCP and REST, against hostile arguments (test/support/fuzz.ts). 200 cases a tool in
// CI; `npm run fuzz` runs longer and prints the seed to replay a failure (FUZZ_SEED). Then each family
// of test/support/fuzz-families.ts (paths, symlinks, search) with its fixed cases and a few generated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAMILIES, fuzzFamilies } from '../../support/fuzz-families.ts';
import { fuzzTools } from '../../support/fuzz-harness.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 200);
// A fixed seed keeps CI reproducible; `npm run fuzz` explores with a new seed each run.
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261130;

test(`every tool answers ${runs} hostile inputs with well-formed envelopes, never internal`, {
  timeout: 20 * 60_000,
}, async () => {
  const report = await fuzzTools({ runs, seed });
  console.log(
    `fuzz seed ${report.seed}: ${report.tools} tools, ${report.cases} cases, answers ${JSON.stringify(report.byCategory)}`,
  );
  assert.ok(report.tools >= 10);
  assert.equal(report.cases, report.tools * runs);
});

test('every fuzz family holds: spellings of every route, symlinks out, pathological search', {
  timeout: 10 * 60_000,
}, async () => {
  const reports = await fuzzFamilies(FAMILIES, {
    // A few generated cases each beside the fixed ones (one route per router's 29 spellings, every
    // link, every worst query on every search route): about 15 s here.
    runs: { paths: 30, symlinks: 15, search: 8 },
    seed,
    log: (line) => console.log(line),
  });
  assert.deepEqual(
    reports.map((r) => r.family),
    [...FAMILIES],
  );
  for (const r of reports) assert.ok(r.cases > 0, r.family);
});
