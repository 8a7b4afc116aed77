// The README is the front door: every flag it names for a `cos` command is listed by that command's
// --help. Read from the README itself (the command table, the configuration flags every command takes,
// and any `cos <command> … --flag` it quotes), so a flag added to the README without help fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../../', import.meta.url).pathname;
const COS = join(ROOT, 'server/bin/cos.mjs');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FLAG = /--[a-z][a-z-]*/g;

/** command → the flags the README names for it. */
function readmeFlags(): Map<string, Set<string>> {
  const section = readme.slice(readme.indexOf('## The `cos` command'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| command |')));
  const commands = new Map<string, Set<string>>();
  for (const row of table.split('\n')) {
    const cell = /^\| `cos (\w+)([^|]*)\|/.exec(row);
    if (!cell?.[1]) continue;
    commands.set(cell[1], new Set(cell[2]?.match(FLAG) ?? []));
  }
  assert.ok(commands.size >= 4, `the README's command table lists the commands (${[...commands.keys()]})`);
  // "Configuration comes from the environment, then flags (`--port`, …)": every command reads them.
  const config = /then flags \(([^)]*)\)/.exec(section)?.[1]?.match(FLAG) ?? [];
  assert.ok(config.length >= 4, 'the README names the configuration flags');
  for (const flags of commands.values()) for (const f of config) flags.add(f);
  // Any command line the README quotes, anywhere: `cos doctor --fix`, `npm run cos -- index --force` …
  for (const m of readme.matchAll(/\bcos(?: --)? (\w+)((?: [^`\n|]*)?)/g)) {
    const flags = commands.get(m[1] ?? '');
    for (const f of m[2]?.match(FLAG) ?? []) flags?.add(f);
  }
  return commands;
}

for (const [command, flags] of readmeFlags()) {
  test(`cos ${command} --help lists ${[...flags].join(' ')}`, () => {
    const res = spawnSync(process.execPath, [COS, command, '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`^usage: cos \\[?${command}`), 'the help is the command’s own');
    const missing = [...flags].filter((f) => !new RegExp(`(^|[\\s\\[,])${f}\\b`).test(res.stdout));
    assert.deepEqual(missing, [], `cos ${command} --help does not list ${missing.join(', ')}`);
  });
}

test('cos --help gives the overview of every command', () => {
  const res = spawnSync(process.execPath, [COS, '--help'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(res.status, 0);
  for (const command of readmeFlags().keys()) assert.match(res.stdout, new RegExp(`cos (\\[)?${command}`));
});
