// The files a shell command recognisably writes (a warning before it runs, never a refusal): output
// redirections, tee, sed -i, mv, cp's destination, rm, touch, truncate and git mv/rm; not reads, not words
// built at run time, not here-document text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellWriteTargets } from '../../../server/coord/shell-writes.ts';

test('what a command writes, and what it does not', () => {
  const cases: [string, string[]][] = [
    ['echo hi > src/a.ts', ['src/a.ts']],
    ['echo hi >> "src/b c.ts" 2>&1', ['src/b c.ts']],
    ['npm test 2> err.log', ['err.log']],
    ['make &> build.log', ['build.log']],
    ["sed -i 's/a/b/' src/x.ts src/y.ts", ['src/x.ts', 'src/y.ts']],
    ["sed -i.bak -e 's/a/b/' src/z.ts", ['src/z.ts']],
    ["sed 's/a/b/' src/q.ts", []],
    ['mv src/old.ts src/new.ts', ['src/old.ts', 'src/new.ts']],
    ['cp -r a b/c', ['b/c']],
    ['cp -t dest/ a b', ['dest/']],
    ['rm -rf src/auth/*.ts && git rm docs/x.md', ['src/auth/*.ts', 'docs/x.md']],
    ['FOO=1 sudo tee -a log.txt < in', ['log.txt']],
    ['ls | tee out.md | wc -l', ['out.md']],
    ['touch a.txt; truncate -s 0 b.txt', ['a.txt', 'b.txt']],
    ['cat <<EOF > out.txt\nrm -rf not-a-command\nEOF\nls', ['out.txt']],
    ['echo $HOME > $OUT', []],
    ['echo a # > not-a-file', []],
    ['git commit -m "x > y"', []],
    ['cat < in.txt; grep -r x src', []],
    ['npm run build', []],
  ];
  for (const [command, expected] of cases) assert.deepEqual(shellWriteTargets(command), expected, command);
});
