// npm run fuzz — long fuzz runs of every tool over MCP and REST.
//   FUZZ_RUNS (default 2000 a tool), FUZZ_SEED (replay a failure), FUZZ_ONLY (comma-separated name parts).
import { fuzzTools } from '../test/support/fuzz-harness.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const only = process.env.FUZZ_ONLY?.split(',').filter(Boolean);
console.log(`fuzz: ${runs} cases a tool, seed ${seed} (replay with FUZZ_SEED=${seed})`);
const started = Date.now();
try {
  const report = await fuzzTools({ runs, seed, ...(only ? { only } : {}), log: (line) => console.log(line) });
  console.log(
    `\n${report.cases} cases over ${report.tools} tools in ${((Date.now() - started) / 1000).toFixed(0)} s; answers:`,
  );
  console.log(JSON.stringify(report.byCategory, null, 2));
} catch (err) {
  console.error(
    `\nFAILED with seed ${seed}: replay with FUZZ_SEED=${seed}${only ? ` FUZZ_ONLY=${only.join(',')}` : ''}\n`,
  );
  console.error(err);
  process.exitCode = 1;
}
