// Issue #29, "Also noticed": after `cos connect claude-code`, Claude Code listed the hub as "Pending
// approval", because project .mcp.json servers need a first-run approval. Connect approves the server it
// wrote the way Claude Code documents (its local settings' enabledMcpjsonServers), says so, and --remove
// takes out only that name. The real CLI on real files in a fresh git repository.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;
const URL_ = 'http://127.0.0.1:9977';
const LOCAL = '.claude/settings.local.json';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'cos-connect-approval-'));
  spawnSync('git', ['init', '-q'], { cwd: repo });
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

function cos(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(
    process.execPath,
    [COS, 'connect', 'claude-code', '--url', URL_, ...args, '--repo', repo],
    {
      encoding: 'utf8',
      env: { ...process.env, COS_HUB_TOKEN: '' },
    },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const read = (p: string) => readFileSync(join(repo, p), 'utf8');
const json = (p: string) => JSON.parse(read(p)) as Record<string, unknown>;
function write(p: string, text: string): void {
  mkdirSync(join(repo, p, '..'), { recursive: true });
  writeFileSync(join(repo, p), text);
}
/** No temporary file left beside the settings: each write is a whole file renamed into place. */
const strays = () => readdirSync(join(repo, '.claude')).filter((n) => n !== 'settings.local.json');

describe('cos connect claude-code pre-approves the .mcp.json server it writes', () => {
  test('an existing settings.local.json keeps its other keys and approvals; --remove gives it back byte for byte', () => {
    const mine =
      '{\n    "permissions": { "allow": ["Bash(npm test)"] },\n    "env": { "FOO": "1" },\n    "enabledMcpjsonServers": ["github"],\n    "disabledMcpjsonServers": ["filesystem"],\n    "model": "opus"\n}\n';
    write(LOCAL, mine);
    const r = cos();
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /note: The cos server in \.mcp\.json is approved for this checkout \(enabledMcpjsonServers in \.claude\/settings\.local\.json\)/,
    );
    const s = json(LOCAL);
    assert.deepEqual(s.enabledMcpjsonServers, ['github', 'cos']);
    assert.deepEqual(s.disabledMcpjsonServers, ['filesystem']);
    assert.deepEqual(s.permissions, { allow: ['Bash(npm test)'] });
    assert.deepEqual(s.env, { FOO: '1' });
    assert.equal(s.model, 'opus');
    assert.ok(s.hooks, 'the hooks are written beside it');
    assert.deepEqual(Object.keys(json('.mcp.json').mcpServers as object), ['cos']);
    assert.match(read(LOCAL), /\n {4}"enabledMcpjsonServers"/, 'the file keeps its own indentation');
    assert.deepEqual(strays(), []);

    const again = cos();
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /already connected/);
    assert.deepEqual(json(LOCAL).enabledMcpjsonServers, ['github', 'cos'], 'never twice');

    const removed = cos('--remove');
    assert.equal(removed.code, 0, removed.err);
    assert.equal(read(LOCAL), mine);
    assert.equal(existsSync(join(repo, '.mcp.json')), false);
  });

  test('--remove takes out only our name: names and keys the user added since stay', () => {
    assert.equal(cos().code, 0);
    const s = json(LOCAL);
    assert.deepEqual(s.enabledMcpjsonServers, ['cos']);
    write(
      LOCAL,
      `${JSON.stringify({ ...s, enabledMcpjsonServers: ['cos', 'linear'], theme: 'dark' }, null, 2)}\n`,
    );
    const r = cos('--remove');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(LOCAL), { enabledMcpjsonServers: ['linear'], theme: 'dark' });

    // Created by connect and nothing added since: the file and its folder go.
    rmSync(join(repo, '.claude'), { recursive: true });
    assert.equal(cos().code, 0);
    assert.equal(cos('--remove').code, 0);
    assert.equal(existsSync(join(repo, '.claude')), false);
  });

  test('an approval the user gave before connect is theirs: --remove leaves it', () => {
    const mine = '{\n  "enabledMcpjsonServers": [\n    "cos"\n  ]\n}\n';
    write(LOCAL, mine);
    const r = cos();
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(json(LOCAL).enabledMcpjsonServers, ['cos']);
    assert.equal(cos('--remove').code, 0);
    assert.equal(read(LOCAL), mine);
  });

  test('a server the user rejected stays rejected, and the output says how to change that', () => {
    write(LOCAL, '{ "disabledMcpjsonServers": ["cos"] }\n');
    const r = cos();
    assert.equal(r.code, 0, r.err);
    const s = json(LOCAL);
    assert.equal(s.enabledMcpjsonServers, undefined);
    assert.deepEqual(s.disabledMcpjsonServers, ['cos']);
    assert.match(
      r.out,
      /note: The cos server stays rejected, .*disabledMcpjsonServers.*take "cos" out of that list/,
    );
    assert.doesNotMatch(r.out, /is approved for this checkout/);
  });

  test('--dry-run shows the approval and writes nothing', () => {
    const r = cos('--dry-run');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\+ {3}"enabledMcpjsonServers": \[\n\+ {5}"cos"\n\+ {3}\]/);
    assert.equal(existsSync(join(repo, '.claude')), false);
    assert.equal(existsSync(join(repo, '.mcp.json')), false);
  });

  test('a malformed settings.local.json, or an approval list that is not a list: a clear error, nothing written', () => {
    for (const [text, why] of [
      [
        '{\n  "permissions": { "allow": ["Bash(ls)"] },\n  "enabledMcpjsonServers": ["github",\n',
        /is not valid JSON/,
      ],
      ['{ "enabledMcpjsonServers": "cos" }\n', /"enabledMcpjsonServers" setting is not a list/],
    ] as const) {
      write(LOCAL, text);
      const r = cos();
      assert.equal(r.code, 1, r.out);
      assert.match(r.err, /^cos connect: \.claude\/settings\.local\.json/);
      assert.match(r.err, why);
      assert.match(r.err, /fix it first, nothing was changed/);
      assert.equal(read(LOCAL), text, 'the file is as it was');
      assert.equal(existsSync(join(repo, '.mcp.json')), false, 'no other file was written either');
      assert.deepEqual(strays(), []);
    }
  });
});
