// End to end, the way an agent reaches the hub: `cos connect <client>` (the real CLI) writes the
// project's config; each recorded payload is delivered through the handler that config names for its
// event (an http hook is posted with its headers, a command hook runs under `sh -c` with the payload on
// stdin: the installed hook script against the real hub); and the hub stores, redacts, answers,
// refreshes the graph and docs, tracks presence and warns or refuses conflicting edits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { planConnect } from '../../../server/hooks/connect.ts';
import {
  answer,
  type Client,
  CONFIG_FILE,
  deliver,
  fixture,
  handlersFor,
  send,
} from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;
const host = { host: '127.0.0.1' };

function cos(dir: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [COS, ...args, '--repo', dir], {
    encoding: 'utf8',
    env: { ...process.env, COS_HUB_TOKEN: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// Each CLI run costs a node start-up (seconds on this loaded machine), so the checks that a second run
// would change nothing ask the planner the CLI prints from, in process; the first run of each is the CLI.
function pending(client: Client, action: 'add' | 'remove'): string[] {
  const ctx = { repo, stateDir: join(repo, '.cos'), hubUrl: t.url, token: false, nodePath: process.execPath };
  return planConnect(client, ctx, action).files.map((f) => f.path);
}

let t: TestHub;
let repo: string;
const before_: Record<string, string> = {};

function seed(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'docs'), { recursive: true });
  mkdirSync(join(dir, '.claude'), { recursive: true });
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(
    join(dir, 'src/math.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n',
  );
  writeFileSync(
    join(dir, 'src/main.ts'),
    "import { add } from './math';\n\nexport const three = add(1, 2);\n",
  );
  writeFileSync(join(dir, 'README.md'), '# Repo\n');
  // Settings the user already has: connect must keep them, and --remove must give them back as they were.
  before_['.claude/settings.local.json'] =
    '{\n    "permissions": {\n        "allow": ["Bash(npm test)"]\n    }\n}\n';
  before_['.gemini/settings.json'] =
    '{\n  "theme": "GitHub",\n  "mcpServers": { "other": { "command": "other-mcp" } }\n}\n';
  for (const [p, text] of Object.entries(before_)) writeFileSync(join(dir, p), text);
  spawnSync('git', ['init', '-q'], { cwd: dir });
}

async function get(url: string): Promise<{ data: Record<string, unknown> }> {
  const res = await t.app.inject({ method: 'GET', url, headers: host });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function activity(query: string) {
  await t.hub.services.agents.idle();
  return (await get(`/api/agents/activity?${query}`)).data as {
    entries: {
      agent: string;
      kind: string;
      phase: string | null;
      ok: boolean | null;
      summary: string;
      files: { path: string }[];
      detail: Record<string, unknown>;
    }[];
    touched: { path: string; agent: string; role: string }[];
  };
}

const agent = (id: string) => t.hub.services.agents.agents({ includeEnded: true }).find((a) => a.id === id);

before(async () => {
  t = await startTestHub({ listen: true, env: { COS_RATE_LIMIT_RPS: '0' } });
  repo = t.dir;
  seed(repo);
  await t.hub.services.graph.reindex();
  await t.hub.services.docs.reindex();
});
after(() => t.close());

describe('cos connect writes configs the clients run', () => {
  for (const client of ['claude-code', 'codex', 'gemini'] as Client[]) {
    test(`${client}: connect is idempotent and keeps the user's settings`, () => {
      const first = cos(repo, 'connect', client, '--url', t.url);
      assert.equal(first.code, 0, first.err);
      const written = readFileSync(join(repo, CONFIG_FILE[client]), 'utf8');
      assert.deepEqual(pending(client, 'add'), [], 'a second connect would change nothing');
      if (client === 'claude-code') {
        const again = cos(repo, 'connect', client, '--url', t.url);
        assert.equal(again.code, 0, again.err);
        assert.match(again.out, /already connected/);
      }
      assert.equal(readFileSync(join(repo, CONFIG_FILE[client]), 'utf8'), written);
      const settings = JSON.parse(written) as Record<string, unknown>;
      if (client === 'claude-code') {
        assert.deepEqual(settings.permissions, { allow: ['Bash(npm test)'] });
        const mcp = JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8'));
        assert.deepEqual(mcp.mcpServers.cos, { type: 'http', url: `${t.url}/mcp` });
        assert.equal(handlersFor(client, repo, 'SessionStart')[0]?.type, 'command');
        assert.equal(handlersFor(client, repo, 'PreToolUse')[0]?.type, 'http');
      }
      if (client === 'gemini') {
        assert.equal(settings.theme, 'GitHub');
        assert.deepEqual((settings.mcpServers as Record<string, unknown>).other, { command: 'other-mcp' });
        assert.deepEqual((settings.mcpServers as Record<string, unknown>).cos, { httpUrl: `${t.url}/mcp` });
      }
      if (client === 'codex')
        assert.match(
          readFileSync(join(repo, '.codex/config.toml'), 'utf8'),
          /\[mcp_servers\.cos\]\nurl = ".*\/mcp"/,
        );
    });
  }

  test('--dry-run prints the change and writes nothing', () => {
    const dry = cos(repo, 'connect', 'codex', '--remove', '--dry-run', '--url', t.url);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /dry run: nothing was written/);
    assert.match(dry.out, /- \[mcp_servers\.cos\]/);
    assert.ok(readFileSync(join(repo, '.codex/config.toml'), 'utf8').includes('[mcp_servers.cos]'));
  });
});

describe('recorded payloads through the installed hooks', () => {
  const CLAUDE = '8e1c2f4a-6b1d-4c7e-9f3a-2d5b7c9e0a11';
  const CODEX = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
  const GEMINI = '5d3f2a1b-9c8e-4f7a-b6d5-e4c3b2a19087';

  test('Claude Code: SessionStart runs the hook script, which prints the session id as context', async () => {
    const d = await send('claude-code', repo, fixture('claude-code', 'session-start', repo));
    assert.equal(d.exitCode, 0);
    const out = answer(d) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(out.hookSpecificOutput.additionalContext, new RegExp(`agent_session: "${CLAUDE}"`));
    const a = agent(CLAUDE);
    assert.equal(a?.lifecycle, 'active');
    assert.equal(a?.model, 'claude-opus-5');
    assert.equal(a?.client, 'claude-code');
  });

  test('Claude Code: the prompt is kept as length and hash only; secrets in commands are redacted', async () => {
    for (const name of ['user-prompt-submit', 'pre-tool-use-bash', 'post-tool-use-failure-bash']) {
      const d = await send('claude-code', repo, fixture('claude-code', name, repo));
      assert.equal(d.status, 200);
      assert.equal(answer(d), null, `${name} answers no decision`);
    }
    const { entries } = await activity(`agent=${CLAUDE}`);
    const prompt = entries.find((e) => e.kind === 'prompt');
    assert.equal(prompt?.detail.prompt, undefined);
    assert.equal(
      prompt?.detail.prompt_chars,
      String(fixture('claude-code', 'user-prompt-submit', repo).prompt).length,
    );
    assert.match(String(prompt?.detail.prompt_sha256), /^[0-9a-f]{64}$/);
    const stored = JSON.stringify(t.hub.db.prepare('SELECT * FROM hook_events').all());
    for (const secret of ['ghp_AbCdEf', 's3cr3t-pw', 'abc123def456', 'sk-ant-api03'])
      assert.ok(!stored.includes(secret), `${secret} is not stored`);
    const failed = await activity('kind=command&failed=true');
    const mine = failed.entries.find((e) => e.agent === CLAUDE);
    assert.equal(mine?.ok, false);
    assert.equal(mine?.detail.exit_code, 1);
    assert.match(String(mine?.detail.command), /Authorization: Bearer \[REDACTED\]/);
  });

  test('Claude Code: edits reported by PostToolUse refresh the graph and docs at once, attributed to the agent', async () => {
    writeFileSync(join(repo, 'docs/notes.md'), '# Notes\n\nThe math module adds numbers.\n');
    writeFileSync(
      join(repo, 'src/math.ts'),
      'export function add(a: number, b: number) {\n  return a + b + 0;\n}\n\nexport function subtract(a: number, b: number) {\n  return a - b;\n}\n',
    );
    for (const name of ['post-tool-use-write', 'post-tool-use-edit']) {
      const d = await send('claude-code', repo, fixture('claude-code', name, repo));
      assert.equal(d.status, 200, d.output);
    }
    const { entries } = await activity(`agent=${CLAUDE}&kind=refresh`);
    assert.ok(entries.length >= 1, 'a refresh event is recorded for the agent');
    const paths = entries.flatMap((e) => e.files.map((f) => f.path)).sort();
    assert.deepEqual([...new Set(paths)], ['docs/notes.md', 'src/math.ts']);
    const docs = (await get('/api/search/docs?query=math%20module%20adds')).data as {
      results: { path: string }[];
    };
    assert.ok(
      docs.results.some((r) => r.path === 'docs/notes.md'),
      'docs/notes.md is searchable',
    );
    const graph = (await get('/api/graph/search?query=subtract')).data as { results: { label: string }[] };
    assert.ok(
      graph.results.some((r) => r.label === 'subtract'),
      'the new function is in the graph',
    );
    const who = await activity('file=src/math.ts');
    assert.ok(who.touched.some((x) => x.agent === CLAUDE && x.role === 'edit'));
    assert.deepEqual(
      agent(CLAUDE)
        ?.files.map((f) => f.path)
        .sort(),
      ['docs/notes.md', 'src/math.ts'],
    );
  });

  test('Codex: command hooks carry apply_patch edits and failed commands', async () => {
    const start = answer(await send('codex', repo, fixture('codex', 'session-start', repo))) as {
      hookSpecificOutput: { additionalContext: string };
    };
    assert.match(start.hookSpecificOutput.additionalContext, new RegExp(CODEX));
    writeFileSync(join(repo, 'docs/rename.md'), '# Renamed add to sum\n');
    for (const name of [
      'user-prompt-submit',
      'pre-tool-use-bash',
      'post-tool-use-bash',
      'pre-tool-use-apply-patch',
      'stop',
    ]) {
      const d = await send('codex', repo, fixture('codex', name, repo));
      assert.equal(d.exitCode, 0);
    }
    // The patch's own files: src/math.ts (conflicts with Claude Code's edit: answered below) and a new doc.
    const post = await send('codex', repo, fixture('codex', 'post-tool-use-apply-patch', repo));
    assert.equal(post.exitCode, 0);
    const { entries } = await activity(`agent=${CODEX}`);
    const edit = entries.find((e) => e.kind === 'edit' && e.phase === 'post');
    assert.deepEqual(
      edit?.files.map((f) => f.path),
      ['src/math.ts', 'docs/rename.md'],
    );
    const lint = entries.find((e) => e.kind === 'command' && e.phase === 'post');
    assert.equal(lint?.ok, false);
    assert.equal(lint?.detail.exit_code, 2);
    const pre = entries.find((e) => e.kind === 'command' && e.phase === 'pre');
    assert.match(String(pre?.detail.command), /OPENAI_API_KEY=\[REDACTED\]/);
    assert.equal(agent(CODEX)?.model, 'gpt-5.3-codex');
  });

  test('Gemini CLI: BeforeTool on a file another live agent just edited answers a warning, then a refusal', async () => {
    await send('gemini', repo, fixture('gemini', 'session-start', repo));
    const warn = answer(await send('gemini', repo, fixture('gemini', 'before-tool-write-file', repo))) as {
      systemMessage: string;
    };
    assert.match(warn.systemMessage, /src\/math\.ts was edited .* by codex 019a2b3c[.;]/);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'block' },
    });
    const refuse = answer(await send('gemini', repo, fixture('gemini', 'before-tool-write-file', repo))) as {
      decision: string;
      reason: string;
    };
    assert.equal(refuse.decision, 'deny');
    assert.match(refuse.reason, /src\/math\.ts/);
    // Claude Code and Codex refuse through PreToolUse's permissionDecision.
    const claude = answer(
      await send('claude-code', repo, fixture('claude-code', 'pre-tool-use-edit', repo)),
    ) as {
      hookSpecificOutput: {
        hookEventName: string;
        permissionDecision: string;
        permissionDecisionReason: string;
      };
    };
    assert.equal(claude.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(
      claude.hookSpecificOutput.permissionDecisionReason,
      new RegExp(`by codex ${CODEX.slice(0, 8)}[.;]`),
    );
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'off' },
    });
    assert.equal(
      answer(await send('claude-code', repo, fixture('claude-code', 'pre-tool-use-edit', repo))),
      null,
    );
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'warn' },
    });
    const conflicts = await activity('kind=conflict');
    assert.ok(conflicts.entries.length >= 3);
    for (const name of [
      'before-agent',
      'after-tool-replace',
      'after-tool-shell-failed',
      'after-agent',
      'notification',
      'pre-compress',
    ]) {
      const d = await send('gemini', repo, fixture('gemini', name, repo));
      assert.equal(d.exitCode, 0);
    }
    const shell = (await activity(`agent=${GEMINI}&kind=command`)).entries[0];
    assert.equal(shell?.ok, false);
    assert.match(String(shell?.detail.command), /postgres:\/\/admin:\[REDACTED\]@db\.internal/);
  });

  test('SessionEnd takes an agent out of presence; the others stay', async () => {
    for (const name of ['notification', 'stop', 'subagent-stop', 'pre-compact', 'session-end'])
      assert.equal((await send('claude-code', repo, fixture('claude-code', name, repo))).status, 200);
    await send('gemini', repo, fixture('gemini', 'session-end', repo));
    assert.equal(agent(CLAUDE)?.lifecycle, 'ended');
    assert.equal(agent(CLAUDE)?.end_reason, 'prompt_input_exit');
    assert.equal(agent(GEMINI)?.lifecycle, 'ended');
    assert.equal(agent(CODEX)?.lifecycle, 'active');
    const now = (await get('/api/presence/now')).data as { counts: Record<string, number> };
    assert.equal(now.counts.active, 1);
  });
});

describe('hooks never slow or break the agent', () => {
  test('the hook script exits 0 with no output when the hub is down or hangs', async () => {
    const payload = fixture('codex', 'pre-tool-use-bash', repo);
    const [handler] = handlersFor('codex', repo, 'PreToolUse');
    assert.ok(handler?.command);
    // Down: nothing listens on the port any more.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const downPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    // Hung: accepts the connection and never answers.
    const hung: Server = createServer(() => {});
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const hungPort = (hung.address() as { port: number }).port;
    try {
      for (const port of [downPort, hungPort]) {
        const command = handler.command.replace(t.url, `http://127.0.0.1:${port}`);
        const d = await deliver('codex', { ...handler, command }, payload);
        assert.equal(d.exitCode, 0);
        assert.equal(d.output, '');
        // The script gives up 850 ms after its process started; a loaded machine slows the exit too.
        assert.ok(d.ms < 5_000, `took ${Math.round(d.ms)} ms`);
      }
    } finally {
      hung.close();
    }
  });

  test("the hook script's deadline counts node's start-up, so a slow start does not add to it", async () => {
    const payload = fixture('codex', 'pre-tool-use-bash', repo);
    const [handler] = handlersFor('codex', repo, 'PreToolUse');
    assert.ok(handler?.command);
    const hung: Server = createServer(() => {});
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const hungPort = (hung.address() as { port: number }).port;
    // A start-up that takes 1.2 s before the script's first line runs (a loaded machine, a slow disk),
    // then a hub that never answers: the script is already past its 850 ms and gives up at once. Were the
    // deadline counted from its first line, it would wait 850 ms more. The preload notes when it let the
    // script start, so what is timed is the script alone, whatever the machine's load does to the rest.
    const preload = join(repo, 'slow-start.cjs');
    const started = join(repo, 'slow-start.at');
    writeFileSync(
      preload,
      `const end = Date.now() + 1200; while (Date.now() < end) {}\nrequire('node:fs').writeFileSync(${JSON.stringify(started)}, String(Date.now()));\n`,
    );
    try {
      const command = handler.command.replace(t.url, `http://127.0.0.1:${hungPort}`);
      const d = await deliver('codex', { ...handler, command }, payload, {
        ...process.env,
        NODE_OPTIONS: `--require ${preload}`,
      });
      const scriptMs = Date.now() - Number(readFileSync(started, 'utf8'));
      assert.equal(d.exitCode, 0);
      assert.equal(d.output, '');
      assert.ok(d.ms >= 1200, `took ${Math.round(d.ms)} ms`);
      assert.ok(
        scriptMs < 600,
        `the script ran ${scriptMs} ms after its slow start: it counted its deadline from its first line`,
      );
    } finally {
      hung.close();
    }
  });

  test('an http hook against a hub that refuses answers a non-2xx, which the client treats as non-blocking', async () => {
    const [handler] = handlersFor('claude-code', repo, 'PreToolUse');
    const d = await deliver('claude-code', handler!, { not: 'a hook payload' });
    assert.equal(d.status, 400);
    assert.match(d.output, /"category":"validation"/);
  });
});

describe('cos connect --remove', () => {
  for (const client of ['claude-code', 'codex', 'gemini'] as Client[]) {
    test(`${client}: takes out exactly what connect added`, () => {
      const r = cos(repo, 'connect', client, '--remove', '--url', t.url);
      assert.equal(r.code, 0, r.err);
      for (const [path, text] of Object.entries(before_))
        if (path.startsWith(client === 'claude-code' ? '.claude' : `.${client}`))
          assert.equal(readFileSync(join(repo, path), 'utf8'), text, `${path} is back as it was`);
      const gone =
        client === 'claude-code'
          ? ['.mcp.json']
          : client === 'codex'
            ? ['.codex/config.toml', '.codex/hooks.json']
            : [];
      for (const p of gone)
        assert.throws(() => readFileSync(join(repo, p)), /ENOENT/, `${p} (created by connect) is gone`);
      assert.deepEqual(pending(client, 'remove'), [], 'nothing of ours is left to remove');
    });
  }
});
