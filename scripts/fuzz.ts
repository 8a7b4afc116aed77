// npm run fuzz — long fuzz runs of every tool over MCP and REST, then the families of fuzz-families.ts
// (spellings of every route's path with a token set, symlinks out of the repository, pathological search).
//   FUZZ_RUNS (default 2000 a tool, and generated cases a family; a tenth of them for `search`),
//   FUZZ_SEED (replay a failure), FUZZ_ONLY (comma-separated tool name parts; `none` runs no tool),
//   FUZZ_FAMILIES (comma-separated: paths, symlinks, search; `none` runs no family; default all).

import { FAMILIES, type Family, fuzzFamilies } from '../test/support/fuzz-families.ts';
import { fuzzTools } from '../test/support/fuzz-harness.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const only = process.env.FUZZ_ONLY?.split(',').filter(Boolean);
const families = (process.env.FUZZ_FAMILIES?.split(',').filter(Boolean) ?? [...FAMILIES]).filter(
  (f): f is Family => {
    if (f === 'none') return false;
    if ((FAMILIES as readonly string[]).includes(f)) return true;
    throw new Error(`FUZZ_FAMILIES: unknown family "${f}" (the families: ${FAMILIES.join(', ')}, or none)`);
  },
);
console.log(
  `fuzz: ${runs} cases a tool and a family, seed ${seed} (replay with FUZZ_SEED=${seed}); families: ${families.join(', ') || 'none'}`,
);
const started = Date.now();
try {
  if (!only?.includes('none')) {
    const report = await fuzzTools({
      runs,
      seed,
      ...(only ? { only } : {}),
      log: (line) => console.log(line),
    });
    console.log(
      `\n${report.cases} cases over ${report.tools} tools in ${((Date.now() - started) / 1000).toFixed(0)} s; answers:`,
    );
    console.log(JSON.stringify(report.byCategory, null, 2));
  }
  if (families.length > 0) {
    const t0 = Date.now();
    await fuzzFamilies(families, {
      runs: { paths: runs, symlinks: runs, search: Math.ceil(runs / 10) },
      seed,
      thorough: true,
      log: (line) => console.log(line),
    });
    console.log(`families in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
} catch (err) {
  console.error(
    `\nFAILED with seed ${seed}: replay with FUZZ_SEED=${seed}${only ? ` FUZZ_ONLY=${only.join(',')}` : ''}${process.env.FUZZ_FAMILIES ? ` FUZZ_FAMILIES=${process.env.FUZZ_FAMILIES}` : ''}\n`,
  );
  console.error(err);
  process.exitCode = 1;
}
