// Packages the benchmarks and the accuracy script measure, at the versions the issues name, installed
// once from the npm registry into $COS_BENCH_CACHE (default ~/.cache/cos-hub-bench, outside the
// repository) and reused: `npm run bench:index -- effect mui` and `npm run graph:accuracy -- --corpus
// effect` read the same install.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const BENCH_CACHE = process.env.COS_BENCH_CACHE ?? join(homedir(), '.cache', 'cos-hub-bench');

/** Packages the issues measured, at the versions they name. */
export const REGISTRY_CORPORA = {
  effect: { pkg: 'effect', version: '4.1.0' },
  mui: { pkg: '@mui/material', version: '9.5.0' },
} as const satisfies Record<string, { pkg: string; version: string }>;

export type RegistryCorpus = keyof typeof REGISTRY_CORPORA;

export const isRegistryCorpus = (name: string): name is RegistryCorpus =>
  Object.hasOwn(REGISTRY_CORPORA, name);

/** The package's directory in the cache, installed from the registry the first time. */
export function registryPackage(name: RegistryCorpus): string {
  const { pkg, version } = REGISTRY_CORPORA[name];
  const root = join(BENCH_CACHE, `${pkg.replace('/', '__')}@${version}`);
  const dir = join(root, 'node_modules', pkg);
  if (existsSync(join(root, '.complete'))) return dir;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"private":true}\n');
  console.log(`installing ${pkg}@${version} into ${root} (once)`);
  // Scripts off, peers and their trees not wanted: only the package's own files are indexed.
  execFileSync(
    'npm',
    [
      'install',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--legacy-peer-deps',
      '-E',
      `${pkg}@${version}`,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  writeFileSync(join(root, '.complete'), `${pkg}@${version}\n`);
  return dir;
}
