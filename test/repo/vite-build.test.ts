// `npm run build` prints no warning, and the graph canvas (sigma, graphology, ForceAtlas2: the page's
// heaviest code) is a chunk of its own that the Graph page loads on demand, as explorer.tsx intends.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const outDir = mkdtempSync(join(tmpdir(), 'cos-vite-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

interface Chunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  isDynamicEntry?: boolean;
}

test('vite build prints no warning and splits the graph canvas into its own chunk', {
  timeout: 180_000,
}, () => {
  // The project's own config (vite.config.ts), into a temporary directory so web/dist is left alone.
  const build = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--manifest',
      '--logLevel',
      'warn',
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(build.status, 0, build.stdout + build.stderr);
  // At level warn, Vite prints only warnings and errors: anything at all is one.
  assert.equal(`${build.stdout}${build.stderr}`.trim(), '', 'the build printed a warning');

  const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    Chunk
  >;
  const canvas = manifest['src/features/graph/graph-canvas.tsx'];
  const page = manifest['src/features/graph/graph-page.tsx'];
  assert.ok(canvas && page, 'the manifest lists the graph page and its canvas');
  assert.equal(canvas.isDynamicEntry, true, 'the canvas is loaded on demand');
  assert.ok(page.dynamicImports?.includes('src/features/graph/graph-canvas.tsx'));
  assert.ok(
    !page.imports?.includes('src/features/graph/graph-canvas.tsx'),
    'the page does not load it up front',
  );
  const size = (c: Chunk) => statSync(join(outDir, c.file)).size;
  // sigma and graphology are in the canvas's chunk, not the page's.
  assert.ok(size(canvas) > 100_000, `the canvas chunk holds sigma (${size(canvas)} bytes)`);
  assert.ok(size(page) < size(canvas) / 4, `the page chunk (${size(page)} bytes) is small beside it`);
});
