// What the indexer reads: indexable languages only, minus .gitignore rules (nested ones apply below
// their directory), the default ignore list, minified bundles and files over 1 MB.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { Walker } from '../../../server/graph/walk.ts';

test('the walker honours .gitignore, default ignores, minified files and the size cap', () => {
  const root = mkdtempSync(join(tmpdir(), 'cos-walk-'));
  const put = (p: string, text = 'x') => {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  };
  try {
    put('.gitignore', 'generated/\n*.log\n');
    put('src/a.ts');
    put('src/b.min.js');
    put('src/big.ts', 'x'.repeat(1024 * 1024 + 1));
    put('src/notes.log');
    put('src/image.png');
    put('generated/g.ts');
    put('node_modules/pkg/index.js');
    put('dist/out.js');
    put('lib/.gitignore', 'secret.py\n');
    put('lib/secret.py');
    put('lib/open.py');
    put('docs/README.md');
    put('package.json', '{}');
    const files = new Walker(root)
      .walk()
      .files.map((f) => f.path)
      .sort();
    assert.deepEqual(files, ['docs/README.md', 'lib/open.py', 'package.json', 'src/a.ts']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the walker leaves excluded directories alone, at any depth below them', () => {
  const root = mkdtempSync(join(tmpdir(), 'cos-walk-'));
  const put = (p: string) => {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), '# x\n');
  };
  try {
    put('docs/guide.md');
    put('docs/tasks/TASK-1-a.md');
    put('docs/tasks/old/TASK-2-b.md');
    put('docs/tasks-notes.md');
    const walker = new Walker(root, { excludedPaths: ['docs/tasks/'] });
    const { files, dirs } = walker.walk();
    assert.deepEqual(files.map((f) => f.path).sort(), ['docs/guide.md', 'docs/tasks-notes.md']);
    assert.ok(!dirs.includes('docs/tasks'), 'not watched either');
    assert.equal(walker.check('docs/tasks/TASK-1-a.md'), undefined);
    assert.equal(walker.check('docs/tasks-notes.md')?.path, 'docs/tasks-notes.md');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
