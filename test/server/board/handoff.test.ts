// cos_task_handoff on a real hub: agents known from their real hook payloads, the claim taken over MCP
// (the official SDK client) and REST. Only the claimant (or a person through REST) hands a task off, and
// only to a live agent; the file names the new holder and its Work Log and history say who gave it to
// whom; the new holder's timeline says it took the task over.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
let mcp: Client;
const host = { host: '127.0.0.1' };

interface Env {
  ok: boolean;
  data?: {
    task: { id: string; agent_session: string | null; path: string };
    from: string | null;
    to: string;
    reservations_moved: number;
    message_id: string | null;
  };
  error?: { category: string; message: string };
}

before(async () => {
  t = await startTestHub({ listen: true, env: { COS_RATE_LIMIT_RPS: '0' } });
  writeFileSync(join(t.config.stateDir, 'board.json'), JSON.stringify({ wip: { in_progress: 20 } }));
  await t.hub.services.board.start();
  for (const title of ['Move the parser', 'Write the docs']) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/board/tasks',
      headers: host,
      payload: { title, labels: ['ready'], priority: 'P1' },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  for (const s of ['ana', 'ben', 'cy'])
    await fetch(`${t.url}/api/hooks/events?client=claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fixture('claude-code', 'session-start', t.dir, { session_id: s })),
    });
  mcp = await connectClient(t.url);
});
after(async () => {
  await mcp.close();
  await t.close();
});

const handoffMcp = async (args: Record<string, unknown>) =>
  (await mcp.callTool({ name: 'cos_task_handoff', arguments: args })).structuredContent as Env;
const handoffRest = async (id: string, body: Record<string, unknown>) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/board/tasks/${id}/handoff`,
    headers: host,
    payload: body,
  });
  return res.json() as Env;
};

let task = '';

test('the claimant hands its task to another live agent: one step, the file, Work Log and history say so', async () => {
  const claimed = (
    await mcp.callTool({
      name: 'cos_task_claim_next',
      arguments: { agent_session: 'ana', reserve: ['src/parse/'], reserve_reason: 'moving the parser' },
    })
  ).structuredContent as { data: { task: { id: string } } };
  task = claimed.data.task.id;
  const env = await handoffMcp({
    id: task,
    to: 'ben',
    note: 'parser moved to src/parse; tests in test/parse still fail on CRLF',
    agent_session: 'ana',
  });
  assert.equal(env.ok, true, JSON.stringify(env.error));
  assert.equal(env.data?.from, 'ana');
  assert.equal(env.data?.to, 'ben');
  assert.equal(env.data?.task.agent_session, 'ben');
  assert.equal(env.data?.reservations_moved, 1, 'the task’s reservation went with it');
  // The note reaches ben's context with its next hook that carries one, once, and waits in its inbox.
  assert.ok(env.data?.message_id);
  const prompt = async () =>
    (await (
      await fetch(`${t.url}/api/hooks/events?client=claude-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fixture('claude-code', 'user-prompt-submit', t.dir, { session_id: 'ben' })),
      })
    ).json()) as { hookSpecificOutput?: { additionalContext?: string } };
  const context = (await prompt()).hookSpecificOutput?.additionalContext ?? '';
  assert.match(context, new RegExp(`You now hold ${task}`));
  assert.match(context, /tests in test\/parse still fail on CRLF/);
  assert.doesNotMatch((await prompt()).hookSpecificOutput?.additionalContext ?? '', /You now hold/);
  const inbox = (await mcp.callTool({ name: 'cos_inbox', arguments: { agent_session: 'ben' } }))
    .structuredContent as { data: { messages: { id: string; from: string }[] } };
  assert.deepEqual(
    inbox.data.messages.map((m) => [m.id, m.from]),
    [[env.data?.message_id, 'ana']],
  );
  const held = await t.app.inject({ method: 'GET', url: '/api/files/reservations', headers: host });
  assert.deepEqual(
    (held.json().data.entries as { holder: string; paths: string[]; task_id: string }[]).map((r) => [
      r.holder,
      r.paths,
      r.task_id,
    ]),
    [['ben', ['src/parse/'], task]],
  );
  const text = readFileSync(join(t.dir, env.data!.task.path), 'utf8');
  assert.match(text, /agent_session: ben/);
  assert.match(
    text,
    /\(ana\) handed off to ben: parser moved to src\/parse; tests in test\/parse still fail on CRLF/,
  );
  const shown = await t.app.inject({ method: 'GET', url: `/api/board/tasks/${task}`, headers: host });
  assert.equal(shown.json().data.status, 'in_progress', 'still in progress, now under ben');
  assert.equal(shown.json().data.agent_session, 'ben');
  const history = await t.app.inject({
    method: 'GET',
    url: `/api/board/tasks/${task}/history`,
    headers: host,
  });
  const entry = (
    history.json().data.events as { detail: { handoff?: { from: string; to: string } } | null }[]
  ).find((e) => e.detail?.handoff);
  assert.deepEqual(entry?.detail?.handoff, { from: 'ana', to: 'ben', by: 'ana' });
  // ben's timeline says it took the task over; ben now holds it on the presence list.
  const timeline = await t.app.inject({
    method: 'GET',
    url: '/api/agents/activity?agent=ben',
    headers: host,
  });
  assert.ok(
    (timeline.json().data.entries as { summary: string }[]).some(
      (e) => e.summary === `took over ${task} (handed off)`,
    ),
  );
});

test('only the claimant hands a task off: another agent is refused, the task stays with its holder', async () => {
  const env = await handoffMcp({ id: task, to: 'cy', note: 'mine now', agent_session: 'ana' });
  assert.equal(env.ok, false);
  assert.equal(env.error?.category, 'permission');
  assert.match(env.error!.message, /held by ben, not by ana/);
  const noName = await handoffMcp({ id: task, to: 'cy', note: 'who am I' });
  assert.equal(noName.ok, false, 'an MCP session that holds nothing is not the claimant');
  const shown = await t.app.inject({ method: 'GET', url: `/api/board/tasks/${task}`, headers: host });
  assert.equal(shown.json().data.agent_session, 'ben');
});

test('a person through REST hands any claimed task off', async () => {
  const env = await handoffRest(task, { to: 'cy', note: 'ben is stuck on CRLF; cy knows the parser' });
  assert.equal(env.error, undefined, JSON.stringify(env.error));
  assert.equal(env.data?.from, 'ben');
  assert.equal(env.data?.task.agent_session, 'cy');
  const text = readFileSync(join(t.dir, env.data!.task.path), 'utf8');
  assert.match(text, /handed off by a person to cy: ben is stuck on CRLF/);
});

test('bad handoffs get a clear error and change nothing', async () => {
  const unknown = await handoffRest(task, { to: 'nobody-here', note: 'take it' });
  assert.equal(unknown.error?.category, 'not_found');
  assert.match(unknown.error!.message, /no live agent nobody-here/);
  const self = await handoffRest(task, { to: 'cy', note: 'again' });
  assert.equal(self.error?.category, 'validation');
  assert.match(self.error!.message, /already held by cy/);
  const blank = await handoffRest(task, { to: 'ana', note: '   ' });
  assert.equal(blank.error?.category, 'validation');
  const ready = await t.app.inject({ method: 'GET', url: '/api/board/ready', headers: host });
  const other = (ready.json().data.tasks as { id: string }[]).find((x) => x.id !== task)!.id;
  const notClaimed = await handoffRest(other, { to: 'ana', note: 'start this' });
  assert.equal(notClaimed.error?.category, 'validation');
  assert.match(notClaimed.error!.message, /not in progress/);
  const missing = await handoffRest('TASK-999', { to: 'ana', note: 'x' });
  assert.equal(missing.error?.category, 'not_found');
  const shown = await t.app.inject({ method: 'GET', url: `/api/board/tasks/${task}`, headers: host });
  assert.equal(shown.json().data.agent_session, 'cy', 'still cy’s after every refusal');
});
