// The package as a new user gets it (`npm run pack:smoke`, a CI step): packs the built project, installs
// the tarball with `npm install -g` into a temporary prefix outside the clone (its dependencies come
// from the npm registry, better-sqlite3 compiles there, nothing resolves to the clone's node_modules),
// then runs that prefix's `cos` in a fresh git repository (scripts/lib/installed-cos.ts).
// Expects `npm run build` to have run (CI does it just before); packs with --ignore-scripts so the
// build is not repeated. `--prefix DIR` reuses an earlier install instead of packing and installing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkInstalledCos, userEnv } from './lib/installed-cos.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { prefix: { type: 'string' }, keep: { type: 'boolean' } } });
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const log = (line: string) => process.stdout.write(`${line}\n`);

function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cos-pack-smoke-'));
  let prefix = values.prefix;
  try {
    if (!prefix) {
      for (const built of ['dist/cos.js', 'web/dist/index.html'])
        if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
      let t0 = performance.now();
      const packed = JSON.parse(
        sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT),
      ) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
      const tarball = join(work, packed[0]!.filename);
      log(
        `ok  npm pack: ${packed[0]!.filename}, ${(packed[0]!.size / 1e6).toFixed(2)} MB packed, ${(packed[0]!.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${packed[0]!.entryCount} files (${Math.round(performance.now() - t0)} ms)`,
      );
      prefix = join(work, 'prefix');
      t0 = performance.now();
      // From a directory outside the clone, so nothing of the clone's is found by resolution; JOBS lets
      // node-gyp compile better-sqlite3 on every core. --prefer-offline: the tarballs `npm ci` just
      // fetched come from npm's cache, unrevalidated; anything missing still comes from the registry.
      sh(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          tarball,
        ],
        work,
        userEnv({ JOBS: 'max' }),
      );
      log(
        `ok  npm install -g ${packed[0]!.filename} into ${prefix} (${Math.round(performance.now() - t0)} ms)`,
      );
    }
    const bin = join(prefix, 'bin', 'cos');
    if (!existsSync(bin)) throw new Error(`${bin} is missing: the package's bin is not installed`);
    const installed = realpathSync(join(prefix, 'lib', 'node_modules', 'cos-hub'));
    if (installed.startsWith(realpathSync(ROOT)))
      throw new Error(`${installed} is inside the clone: the install must not use the clone's files`);
    for (const stray of ['node_modules/tsx', 'node_modules/typescript', 'server/main.ts', 'test'])
      if (existsSync(join(installed, stray)))
        throw new Error(`the installed package has ${stray}; it must not`);
    log(`ok  installed at ${installed}: ${statSync(bin).isFile() ? 'bin/cos' : 'bin/cos (link)'}`);
    const report = await checkInstalledCos([bin], { version, log });
    log(`ok  ${report.tools} tools; ${report.indexed}`);
    log('pack-smoke: the installed package works');
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`pack-smoke: FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
