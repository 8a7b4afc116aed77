// What agents cost, end to end on the real hub: three clients' agents post their hooks (with the
// transcript_path each client sends), the hub reads the transcripts they name from the clients' own
// folders (a temporary HOME, CLAUDE_CONFIG_DIR and CODEX_HOME), and cos_cost_report splits tokens and
// USD by task, agent, model, day and kind on a fixed price table (prices.json), to the millionth of a
// dollar: a Claude message repeated on each of its content blocks counts once, Codex's repeated running
// totals count once, a partial last line waits for its end, a transcript that grows is read on from
// where the last read stopped, a replaced one is read again without counting twice, a deleted one
// loses nothing already counted.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { type ClaudeUsage, claudeLine as line } from '../../support/transcripts.ts';

// The board stamps its history with the wall clock, so transcripts are stamped with it too, each line
// a millisecond after the last, and each board step waits until the clock has passed what was written.
let last = 0;
const iso = () => {
  last = Math.max(Date.now(), last + 1);
  return new Date(last).toISOString();
};
const settle = async () => {
  while (Date.now() <= last + 2) await new Promise((r) => setTimeout(r, 5));
};
let t: TestHub;
let home: string;
let claudeFile: string;
let codexFile: string;
let geminiFile: string;

const host = { host: '127.0.0.1', 'content-type': 'application/json' };
const SESSION = { a: 'c1a2b3c4-0000-4000-8000-00000000000a', b: '019a2b3c-4d5e-7f60-8a9b-00000000000b' };
const GEMINI_SESSION = '5d3f2a1b-9c8e-4f7a-b6d5-00000000000c';

/** One assistant line as Claude Code writes it (one per content block, each with the message's usage). */
const claudeLine = (id: string, usage: ClaudeUsage, block?: unknown, model?: string) =>
  line({ id, at: iso(), usage, session: SESSION.a, block, ...(model ? { model } : {}) });

const userLine = (text: string) =>
  `${JSON.stringify({
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${text.length}`,
    timestamp: iso(),
  })}\n`;

function codexLines(totals: { input: number; cached: number; output: number }[]): string {
  const head = [
    {
      timestamp: iso(),
      type: 'session_meta',
      payload: {
        id: SESSION.b,
        timestamp: iso(),
        cwd: '/home/dev/repo',
        originator: 'codex_cli_rs',
        cli_version: '0.46.0',
        instructions: null,
      },
    },
    {
      timestamp: iso(),
      type: 'turn_context',
      payload: {
        cwd: '/home/dev/repo',
        approval_policy: 'on-request',
        model: 'gpt-5-codex',
        effort: 'medium',
      },
    },
    // A rate-limit update before any request: no usage yet.
    {
      timestamp: iso(),
      type: 'event_msg',
      payload: { type: 'token_count', info: null, rate_limits: { primary: { used_percent: 3 } } },
    },
  ];
  const counts = totals.flatMap((tot, i) => {
    const line = {
      timestamp: iso(),
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: tot.input,
            cached_input_tokens: tot.cached,
            output_tokens: tot.output,
            reasoning_output_tokens: Math.floor(tot.output / 2),
            total_tokens: tot.input + tot.output,
          },
          last_token_usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1, total_tokens: 2 },
          model_context_window: 272000,
        },
        rate_limits: { primary: { used_percent: 5 + i } },
      },
    };
    // Codex repeats the same totals on a rate-limit update: the second is no new request.
    return [line, { ...line, timestamp: iso() }];
  });
  return `${[...head, ...counts].map((l) => JSON.stringify(l)).join('\n')}\n`;
}

function geminiDocument(messages: Record<string, unknown>[]): string {
  return JSON.stringify(
    {
      sessionId: GEMINI_SESSION,
      projectHash: '3c1f9a',
      startTime: iso(),
      lastUpdated: iso(),
      messages: [{ id: 'm0', timestamp: iso(), type: 'user', content: 'Explain the parser.' }, ...messages],
    },
    null,
    2,
  );
}

const hook = async (
  client: 'claude-code' | 'codex' | 'gemini',
  name: string,
  body: Record<string, unknown>,
) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/hooks/events?client=${client}`,
    headers: host,
    payload: fixture(client, name, t.dir, body),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

const api = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
  const res = await t.app.inject({ method, url, headers: host, ...(payload ? { payload } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
};

interface Group {
  key: string | null;
  cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
  records: number;
  unpriced: { tokens: number; models: string[] } | null;
  task?: { id: string; over_budget: boolean; kind: string } | null;
}
const report = (query: string) =>
  api('GET', `/api/costs?${query}`) as Promise<{
    total: Group;
    groups: Group[];
    budget: { task_usd: number | null; over: string[] };
    completed_tasks: { tasks: number; median_cost_usd: number | null; p85_cost_usd: number | null } | null;
    prices: { file: string | null; overrides: number; error: string | null };
  }>;
const usd = (g: Group | undefined) => g?.cost_usd ?? Number.NaN;
const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

// USD per million tokens: what every figure below is computed from by hand.
const PRICES = {
  'claude-sonnet-4-5': { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 },
  'gpt-5-codex': { input: 1.25, output: 10, cache_write: 1.25, cache_read: 0.125 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cache_write: 1.25, cache_read: 0.125 },
};
// Claude: m1 before the claim (session), m2 and m3 on TASK-1, m4 after completing it (session).
const M1 = (1000 * 3 + 2000 * 15 + 10_000 * 3.75) / 1e6; // 0.0705
const M2 = (2000 * 3 + 4000 * 15 + 100_000 * 0.3) / 1e6; // 0.096
const M3 = (500 * 3 + 1000 * 15 + 20_000 * 3.75 + 200_000 * 0.3) / 1e6; // 0.1515
const M4 = (100 * 3 + 200 * 15 + 1_000_000 * 0.3) / 1e6; // 0.3033
const M5 = (10 * 3 + 10 * 15) / 1e6; // 0.00018, the line written in two parts
// Codex on TASK-2: the growth of its running totals (cached input billed as cache reads).
const X1 = (10_000 * 1.25 + 40_000 * 0.125 + 3000 * 10) / 1e6; // 0.0475
const X2 = (10_000 * 1.25 + 30_000 * 0.125 + 2000 * 10) / 1e6; // 0.03625
const X3 = (5000 * 1.25 + 5000 * 0.125 + 1000 * 10) / 1e6; // after the file is replaced
// Gemini, no task: input less cached, thoughts billed as output; a model without a price apart.
const G1 = (6000 * 1.25 + 800 * 10 + 4000 * 0.125) / 1e6; // 0.016

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'cos-costs-home-'));
  const claudeDir = join(home, 'claude-config');
  const codexHome = join(home, 'codex-home');
  t = await startTestHub({
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: claudeDir,
      CODEX_HOME: codexHome,
      COS_RATE_LIMIT_RPS: '0',
    },
  });
  await t.hub.services.board.start();
  mkdirSync(t.config.stateDir, { recursive: true });
  writeFileSync(join(t.config.stateDir, 'prices.json'), JSON.stringify({ models: PRICES }));
  writeFileSync(join(t.config.stateDir, 'board.json'), JSON.stringify({ budget: { task_usd: 0.2 } }));
  claudeFile = join(claudeDir, 'projects', '-home-dev-repo', `${SESSION.a}.jsonl`);
  codexFile = join(
    codexHome,
    'sessions',
    '2026',
    '12',
    '01',
    `rollout-2026-12-01T10-00-00-${SESSION.b}.jsonl`,
  );
  geminiFile = join(
    home,
    '.gemini',
    'tmp',
    '3c1f9a',
    'chats',
    `session-2026-12-01T10-00-${GEMINI_SESSION}.json`,
  );
  for (const f of [claudeFile, codexFile, geminiFile]) mkdirSync(join(f, '..'), { recursive: true });
  for (const [title, kind] of [
    ['Fix the parser', 'bug'],
    ['Add the export', 'feature'],
  ] as const)
    await api('POST', '/api/board/tasks', { title, kind, labels: ['ready'], priority: 'P1' });
});
after(async () => {
  await t.close();
  rmSync(home, { recursive: true, force: true });
});

describe('tokens and cost per task, agent and model', () => {
  test('agents of three clients work; each transcript is read after its hook is answered', async () => {
    // Claude's agent: one message before it claims a task; its hooks name its transcript.
    writeFileSync(
      claudeFile,
      userLine('Fix the parser') + claudeLine('msg_01', { input: 1000, output: 2000, cw: 10_000 }),
    );
    await hook('claude-code', 'session-start', { session_id: SESSION.a, transcript_path: claudeFile });
    await settle();
    const a = await api('POST', '/api/board/claim-next', { agent_session: SESSION.a });
    assert.equal(a.task.id, 'TASK-1');
    const b = await api('POST', '/api/board/claim-next', { agent_session: SESSION.b });
    assert.equal(b.task.id, 'TASK-2');
    // m2 streams: three content blocks, three lines, the usage repeated and its output growing.
    appendFileSync(
      claudeFile,
      claudeLine('msg_02', { input: 2000, output: 10, cr: 100_000 }, { type: 'thinking', thinking: '…' }) +
        claudeLine('msg_02', { input: 2000, output: 10, cr: 100_000 }) +
        claudeLine('msg_02', { input: 2000, output: 4000, cr: 100_000 }, { type: 'tool_use', name: 'Edit' }) +
        claudeLine('msg_03', { input: 500, output: 1000, cw: 20_000, cr: 200_000 }) +
        // Claude Code's own note on an interruption costs nothing.
        claudeLine('msg_synthetic', { input: 0, output: 9 }, undefined, '<synthetic>'),
    );
    await settle();
    await hook('claude-code', 'stop', { session_id: SESSION.a, transcript_path: claudeFile });
    writeFileSync(
      codexFile,
      codexLines([
        { input: 50_000, cached: 40_000, output: 3000 },
        { input: 90_000, cached: 70_000, output: 5000 },
      ]),
    );
    await hook('codex', 'stop', { session_id: SESSION.b, transcript_path: codexFile });
    writeFileSync(
      geminiFile,
      geminiDocument([
        {
          id: 'g1',
          timestamp: iso(),
          type: 'gemini',
          content: 'The parser…',
          thoughts: [{ subject: 'Reading', description: '…' }],
          tokens: { input: 10_000, output: 500, cached: 4000, thoughts: 300, tool: 0, total: 10_800 },
          model: 'gemini-2.5-pro',
        },
        {
          id: 'g2',
          timestamp: iso(),
          type: 'gemini',
          content: 'Done.',
          tokens: { input: 1000, output: 100, cached: 0, thoughts: 0, tool: 0, total: 1100 },
          model: 'local-llama-3',
        },
      ]),
    );
    await hook('gemini', 'session-end', { session_id: GEMINI_SESSION, transcript_path: geminiFile });
    await t.hub.services.costs.idle();

    const byModel = await report('group_by=model');
    const claude = byModel.groups.find((g) => g.key?.startsWith('claude-sonnet-4-5'));
    assert.deepEqual(
      [claude?.input_tokens, claude?.output_tokens, claude?.cache_write_tokens, claude?.cache_read_tokens],
      [3500, 7000, 30_000, 300_000],
      'msg_02 counts once, with its final output; the synthetic note not at all',
    );
    assert.equal(claude?.records, 3);
    near(usd(claude), M1 + M2 + M3, 'claude');
    const codex = byModel.groups.find((g) => g.key === 'gpt-5-codex');
    assert.deepEqual(
      [codex?.input_tokens, codex?.output_tokens, codex?.cache_read_tokens, codex?.records],
      [20_000, 5000, 70_000, 2],
      "Codex's repeated totals count once; cached input is cache reads",
    );
    near(usd(codex), X1 + X2, 'codex');
    near(usd(byModel.groups.find((g) => g.key === 'gemini-2.5-pro')), G1, 'gemini');
    const local = byModel.groups.find((g) => g.key === 'local-llama-3');
    assert.equal(local?.cost_usd, null, 'a model without a price is never costed at 0');
    assert.deepEqual(local?.unpriced, { tokens: 1100, models: ['local-llama-3'] });
    assert.deepEqual(byModel.total.unpriced, { tokens: 1100, models: ['local-llama-3'] });
    near(usd(byModel.total), M1 + M2 + M3 + X1 + X2 + G1, 'total');
    assert.equal(byModel.prices.overrides, 3);
    assert.equal(byModel.prices.error, null);
  });

  test('usage between a claim and its completion is the task’s; the rest the session’s', async () => {
    await settle();
    await api('POST', '/api/board/tasks/TASK-1/move', { to: 'complete' });
    appendFileSync(claudeFile, claudeLine('msg_04', { input: 100, output: 200, cr: 1_000_000 }));
    // The last line as a reader can catch it: half written.
    const m5 = claudeLine('msg_05', { input: 10, output: 10 });
    appendFileSync(claudeFile, m5.slice(0, 80));
    await settle();
    await hook('claude-code', 'stop', { session_id: SESSION.a, transcript_path: claudeFile });
    await t.hub.services.costs.idle();
    let byTask = await report('group_by=task');
    const task1 = byTask.groups.find((g) => g.key === 'TASK-1');
    near(usd(task1), M2 + M3, 'TASK-1');
    assert.equal(task1?.task?.over_budget, true, 'over its budget of $0.20');
    near(usd(byTask.groups.find((g) => g.key === 'TASK-2')), X1 + X2, 'TASK-2');
    near(
      usd(byTask.groups.find((g) => g.key === null)),
      M1 + M4 + G1,
      'outside any task (the half line waits)',
    );
    assert.deepEqual(byTask.budget, { task_usd: 0.2, over: ['TASK-1'] });
    assert.equal(byTask.completed_tasks?.tasks, 1);
    near(byTask.completed_tasks?.median_cost_usd ?? Number.NaN, M2 + M3, 'median of completed tasks');

    appendFileSync(claudeFile, m5.slice(80));
    await hook('claude-code', 'stop', { session_id: SESSION.a, transcript_path: claudeFile });
    await t.hub.services.costs.idle();
    byTask = await report('group_by=task');
    near(usd(byTask.groups.find((g) => g.key === null)), M1 + M4 + M5 + G1, 'the line once whole');

    const byAgent = await report('group_by=agent');
    near(usd(byAgent.groups.find((g) => g.key === SESSION.a)), M1 + M2 + M3 + M4 + M5, 'agent a');
    near(usd(byAgent.groups.find((g) => g.key === SESSION.b)), X1 + X2, 'agent b');
    const one = await report(`task_id=TASK-1&group_by=model`);
    near(usd(one.total), M2 + M3, 'the report of one task');
    const kinds = await report('group_by=kind');
    near(usd(kinds.groups.find((g) => g.key === 'bug')), M2 + M3, 'bug');
    near(usd(kinds.groups.find((g) => g.key === 'feature')), X1 + X2, 'feature');
    const days = await report('group_by=day');
    assert.deepEqual(
      days.groups.map((g) => g.key),
      [new Date(last).toISOString().slice(0, 10)],
    );
  });

  test('a task handed to another agent: each one’s part adds up on the task', async () => {
    await settle();
    await api('POST', '/api/board/tasks/TASK-2/handoff', {
      to: SESSION.a,
      note: 'Codex ran out of context; the export is half done.',
      agent_session: SESSION.b,
    });
    appendFileSync(claudeFile, claudeLine('msg_06', { input: 1000, output: 1000 }));
    await settle();
    await hook('claude-code', 'stop', { session_id: SESSION.a, transcript_path: claudeFile });
    await t.hub.services.costs.idle();
    const byTask = await report('group_by=task');
    near(usd(byTask.groups.find((g) => g.key === 'TASK-2')), X1 + X2 + 18_000 / 1e6, 'both agents on TASK-2');
  });

  test('a replaced transcript is read again from its start without counting twice; a deleted one keeps its count', async () => {
    // Rotation: the same session's file written anew (a new inode) with one more request.
    const next = `${codexFile}.new`;
    writeFileSync(
      next,
      codexLines([
        { input: 50_000, cached: 40_000, output: 3000 },
        { input: 90_000, cached: 70_000, output: 5000 },
        { input: 100_000, cached: 75_000, output: 6000 },
      ]),
    );
    renameSync(next, codexFile);
    await settle();
    await hook('codex', 'stop', { session_id: SESSION.b, transcript_path: codexFile });
    await t.hub.services.costs.idle();
    let byAgent = await report('group_by=agent');
    near(usd(byAgent.groups.find((g) => g.key === SESSION.b)), X1 + X2 + X3, 'agent b after rotation');
    rmSync(codexFile);
    await hook('codex', 'stop', { session_id: SESSION.b, transcript_path: codexFile });
    await t.hub.services.costs.idle();
    byAgent = await report('group_by=agent');
    near(usd(byAgent.groups.find((g) => g.key === SESSION.b)), X1 + X2 + X3, 'agent b after deletion');
  });
});

describe('what the report refuses', () => {
  test('bad input answers validation or not_found, saying what to pass', async () => {
    const cases: [string, number, string, RegExp][] = [
      ['group_by=month', 400, 'validation', /group_by/],
      ['task_id=TASK-999', 404, 'not_found', /TASK-999/],
      ['task_id=nonsense', 400, 'validation', /TASK-/],
      ['cursor=xyz', 400, 'validation', /next_cursor/],
      ['since=yesterday-ish', 400, 'validation', /since/],
    ];
    for (const [query, status, category, message] of cases) {
      const res = await t.app.inject({ method: 'GET', url: `/api/costs?${query}`, headers: host });
      assert.equal(res.statusCode, status, `${query}: ${res.body}`);
      assert.equal(res.json().error.category, category, query);
      assert.match(res.json().error.message, message, query);
    }
  });

  test('a prices.json that does not parse leaves the shipped table in force and says so', async () => {
    writeFileSync(
      join(t.config.stateDir, 'prices.json'),
      '{"models": {"claude-sonnet-4-5": {"input": "three"}}',
    );
    // The file is looked at again at most once a second.
    await new Promise((r) => setTimeout(r, 1100));
    const r = await report('group_by=model');
    assert.match(r.prices.error ?? '', /prices\.json/);
    assert.ok((r.total.cost_usd ?? 0) > 0, 'the shipped prices still cost the tokens');
    writeFileSync(join(t.config.stateDir, 'prices.json'), JSON.stringify({ models: PRICES }));
  });
});
