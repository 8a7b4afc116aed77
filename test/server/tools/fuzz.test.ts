// Every tool, over MCP and REST, against hostile arguments (test/support/fuzz.ts). 200 cases a tool in
// CI; `npm run fuzz` runs longer and prints the seed to replay a failure (FUZZ_SEED).
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
