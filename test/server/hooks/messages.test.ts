// Messages between agents and people, delivered into the recipient's context by the hook events that can
// carry it, through real hook payloads as each client sends them (Claude Code's http hooks through the
// config `cos connect` writes; command hooks' payloads as the hook script posts them): a message enters a context once and stays in the inbox until acked; urgent
// ones also ride PreToolUse; at most about 2 KB a hook ("N more: cos_inbox"); redacted; threaded;
// addressed to a task's claimant, to all, to a person; unknown recipients and threads, floods and
// acking another's messages refused with the category that says what to do.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HubEvent } from '../../../server/events/bus.ts';
import { applyConnect, hookScriptSource, planConnect } from '../../../server/hooks/connect.ts';
import { answer, type Client, fixture, send } from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
const host = { host: '127.0.0.1' };
const busEvents: HubEvent[] = [];

before(async () => {
  t = await startTestHub({ listen: true, env: { COS_RATE_LIMIT_RPS: '0' } });
  const ctx = {
    repo: t.dir,
    stateDir: t.config.stateDir,
    hubUrl: t.url,
    token: false,
    nodePath: process.execPath,
  };
  for (const client of ['claude-code', 'codex', 'gemini'] as const)
    applyConnect(planConnect(client, ctx, 'add'), ctx, hookScriptSource());
  t.hub.events.subscribe((e) => {
    if (e.type.startsWith('message-')) busEvents.push(e);
  });
});
after(() => t.close());

interface Answer {
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    additionalContext?: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
  };
}

/**
 * One hook event of `session` as `client` sends it. Claude Code's http hooks go through the handler its
 * config names; a command hook's payload (Codex, Gemini CLI, Claude Code's SessionStart) is posted as the
 * installed hook script posts it, and its answer read as the script prints it (connect.test.ts runs the
 * script itself: one started on this loaded machine may give up after its 850 ms, failing open).
 */
async function hook(
  client: Client,
  session: string,
  name: string,
  overrides: Record<string, unknown> = {},
  via: 'config' | 'post' = client === 'claude-code' && name !== 'session-start' ? 'config' : 'post',
): Promise<Answer | null> {
  const payload = fixture(client, name, t.dir, { session_id: session, ...overrides });
  if (via === 'config') {
    const d = await send(client, t.dir, payload);
    assert.ok(d.status === undefined || d.status === 200, d.output);
    return answer(d) as Answer | null;
  }
  const res = await fetch(`${t.url}/api/hooks/events?client=${client}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Answer;
  return Object.keys(body).length === 0 ? null : body;
}

/** Waits until what the hub recorded is in its store (in a team, the outbox has written it). */
const recorded = () => t.hub.services.team?.drain();

const context = (a: Answer | null) => a?.hookSpecificOutput?.additionalContext ?? '';

async function rest<T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> {
  const res = await t.app.inject({ method, url, headers: host, ...(payload ? { payload } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { data: T }).data;
}

async function refused(method: 'GET' | 'POST', url: string, payload: object) {
  const res = await t.app.inject({ method, url, headers: host, payload });
  return {
    status: res.statusCode,
    error: (res.json() as { error: { category: string; message: string; retryable: boolean } }).error,
  };
}

interface Sent {
  id: string;
  thread_id: string;
  from: string;
  to: string;
  body: string;
  subject: string | null;
  recipients: { agent: string; delivered_at: string | null; acked_at: string | null }[];
}
interface Inbox {
  agent: string;
  messages: (Sent & { delivered_at: string | null; acked_at: string | null })[];
  unread: number;
  next_cursor: string | null;
}

const sendMessage = (payload: Record<string, unknown>) => rest<Sent>('POST', '/api/messages', payload);
const inbox = (agent: string, query = '') =>
  rest<Inbox>('GET', `/api/messages/inbox?agent_session=${encodeURIComponent(agent)}${query}`);
const ack = (agent: string, ids: string[]) =>
  rest<{ acked: { id: string }[]; unread: number }>('POST', '/api/messages/ack', {
    agent_session: agent,
    ids,
  });

/** Starts a Claude Code agent the way its SessionStart hook does. */
const start = (session: string) => hook('claude-code', session, 'session-start');

describe('delivered into the context, once', () => {
  test('a message from agent A to agent B is in B’s next UserPromptSubmit answer once, and in its inbox until acked', async () => {
    await start('cc-a');
    await start('cc-b');
    const sent = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-b',
      subject: 'rebase',
      body: 'I moved src/auth; rebase before you touch it.',
    });
    assert.equal(sent.from, 'cc-a');
    assert.equal(sent.thread_id, sent.id, 'a new message starts its own thread');
    assert.deepEqual(sent.recipients, [{ agent: 'cc-b', delivered_at: null, acked_at: null }]);
    assert.equal(await hook('claude-code', 'cc-a', 'user-prompt-submit'), null, 'not the sender’s');

    const first = await hook('claude-code', 'cc-b', 'user-prompt-submit');
    assert.equal(first?.hookSpecificOutput?.hookEventName, 'UserPromptSubmit');
    assert.match(
      context(first),
      new RegExp(`${sent.id} from .*"cc-a".*: rebase: I moved src/auth; rebase before you touch it\\.`),
    );
    assert.match(context(first), /cos_message_ack/);
    for (const name of ['user-prompt-submit', 'post-tool-use-edit', 'pre-tool-use-edit'])
      assert.equal(await hook('claude-code', 'cc-b', name), null, `${name}: delivered once, never again`);

    await recorded();
    let box = await inbox('cc-b');
    const held = box.messages.find((m) => m.id === sent.id);
    assert.ok(held?.delivered_at, 'marked delivered');
    assert.equal(held?.acked_at, null, 'still unread: it stays until acked');
    assert.equal(box.unread, 1);
    assert.deepEqual(
      (await inbox('cc-b', '&unread_only=true')).messages.map((m) => m.id),
      [sent.id],
    );
    const acked = await ack('cc-b', [sent.id]);
    assert.equal(acked.unread, 0);
    box = await inbox('cc-b', '&unread_only=true');
    assert.deepEqual(box.messages, []);
    assert.equal((await inbox('cc-b')).messages[0]?.acked_at !== null, true, 'still listed, acked');
    assert.ok(
      busEvents.some((e) => e.type === 'message-created' && (e.data as { id: string }).id === sent.id),
    );
    for (const type of ['message-delivered', 'message-acked'])
      assert.ok(
        busEvents.some((e) => e.type === type && (e.data as { ids: string[] }).ids.includes(sent.id)),
        type,
      );
  });

  test('PostToolUse and SessionStart carry messages too; SessionStart keeps its session context', async () => {
    const one = await sendMessage({ agent_session: 'cc-a', to: 'cc-b', body: 'first note' });
    const post = await hook('claude-code', 'cc-b', 'post-tool-use-edit');
    assert.equal(post?.hookSpecificOutput?.hookEventName, 'PostToolUse');
    assert.match(context(post), new RegExp(`${one.id} .*first note`));
    const two = await sendMessage({ agent_session: 'cc-a', to: 'cc-b', body: 'second note' });
    const resumed = await hook('claude-code', 'cc-b', 'session-start', { source: 'resume' });
    assert.equal(resumed?.hookSpecificOutput?.hookEventName, 'SessionStart');
    assert.match(context(resumed), /^cos hub: this session is agent_session "cc-b"/);
    assert.match(context(resumed), new RegExp(`${two.id} .*second note`));
    assert.doesNotMatch(context(resumed), /first note/, 'the first one entered a context already');
    await ack('cc-b', [one.id, two.id]);
  });

  test('urgent messages ride PreToolUse; the others wait for the next event that can carry them', async () => {
    const calm = await sendMessage({ agent_session: 'cc-a', to: 'cc-b', body: 'when you have a minute' });
    const urgent = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-b',
      body: 'stop: main is broken',
      urgent: true,
    });
    const pre = await hook('claude-code', 'cc-b', 'pre-tool-use-bash');
    assert.equal(pre?.hookSpecificOutput?.hookEventName, 'PreToolUse');
    assert.equal(pre?.hookSpecificOutput?.permissionDecision, undefined, 'no permission decision is taken');
    assert.match(context(pre), new RegExp(`${urgent.id} \\[urgent\\] .*stop: main is broken`));
    assert.doesNotMatch(context(pre), /when you have a minute/);
    assert.equal(await hook('claude-code', 'cc-b', 'pre-tool-use-bash'), null);
    const post = await hook('claude-code', 'cc-b', 'post-tool-use-edit');
    assert.match(context(post), new RegExp(`${calm.id} .*when you have a minute`));
    assert.doesNotMatch(context(post), /main is broken/);
    await ack('cc-b', [calm.id, urgent.id]);
  });

  test('with an edit conflict: a warning and an urgent message share additionalContext; a refusal carries it in its reason', async () => {
    await hook('claude-code', 'cc-a', 'post-tool-use-edit', {
      tool_input: { file_path: `${t.dir}/src/shared.ts`, old_string: 'a', new_string: 'b' },
    });
    const edit = { tool_input: { file_path: `${t.dir}/src/shared.ts`, old_string: 'a', new_string: 'b' } };
    const m1 = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-b',
      body: 'I am in shared.ts',
      urgent: true,
    });
    const warned = await hook('claude-code', 'cc-b', 'pre-tool-use-edit', edit);
    assert.match(String(warned?.systemMessage), /src\/shared\.ts was edited .* by claude-code cc-a/);
    assert.doesNotMatch(
      String(warned?.systemMessage),
      /I am in shared\.ts/,
      'the user-facing warning stays the warning',
    );
    assert.ok(context(warned).startsWith(String(warned?.systemMessage)), 'the warning first');
    assert.match(context(warned), new RegExp(`${m1.id} \\[urgent\\].*I am in shared\\.ts`));

    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'block' },
    });
    try {
      const m2 = await sendMessage({
        agent_session: 'cc-a',
        to: 'cc-b',
        body: 'wait for my push',
        urgent: true,
      });
      const calm = await sendMessage({ agent_session: 'cc-a', to: 'cc-b', body: 'no rush' });
      const denied = await hook('claude-code', 'cc-b', 'pre-tool-use-edit', edit);
      assert.equal(denied?.hookSpecificOutput?.permissionDecision, 'deny');
      const reason = String(denied?.hookSpecificOutput?.permissionDecisionReason);
      assert.match(reason, /src\/shared\.ts .* claude-code cc-a/);
      assert.match(reason, new RegExp(`${m2.id} \\[urgent\\].*wait for my push`));
      assert.doesNotMatch(reason, /no rush/);
      assert.equal(denied?.hookSpecificOutput?.additionalContext, undefined);
      const next = await hook('claude-code', 'cc-b', 'user-prompt-submit');
      assert.match(context(next), /no rush/);
      assert.doesNotMatch(context(next), /wait for my push/);
      await ack('cc-b', [m1.id, m2.id, calm.id]);
    } finally {
      await t.app.inject({
        method: 'PATCH',
        url: '/api/settings/hooks',
        headers: host,
        payload: { conflicts: 'warn' },
      });
    }
  });

  test('Codex, through the hook script: UserPromptSubmit, PostToolUse and an urgent PreToolUse answer with additionalContext', async () => {
    await hook('codex', 'cx-1', 'session-start');
    const a = await sendMessage({ agent_session: 'cc-a', to: 'cx-1', body: 'codex: look at TASK-3' });
    const prompt = await hook('codex', 'cx-1', 'user-prompt-submit');
    assert.equal(prompt?.hookSpecificOutput?.hookEventName, 'UserPromptSubmit');
    assert.match(context(prompt), new RegExp(`${a.id} .*look at TASK-3`));
    const b = await sendMessage({
      agent_session: 'cc-a',
      to: 'cx-1',
      body: 'and run the tests',
      urgent: true,
    });
    const pre = await hook('codex', 'cx-1', 'pre-tool-use-bash');
    assert.equal(pre?.hookSpecificOutput?.hookEventName, 'PreToolUse');
    assert.match(context(pre), new RegExp(`${b.id} \\[urgent\\]`));
    const c = await sendMessage({ agent_session: 'cc-a', to: 'cx-1', body: 'thanks' });
    const post = await hook('codex', 'cx-1', 'post-tool-use-bash');
    assert.equal(post?.hookSpecificOutput?.hookEventName, 'PostToolUse');
    assert.match(context(post), new RegExp(`${c.id} .*thanks`));
    assert.equal(await hook('codex', 'cx-1', 'post-tool-use-bash'), null);
  });

  test('Gemini CLI: BeforeAgent and AfterTool carry them; BeforeTool only when it refuses (its reason reaches the model)', async () => {
    await hook('gemini', 'gm-1', 'session-start');
    const a = await sendMessage({ agent_session: 'cc-a', to: 'gm-1', body: 'gemini: hello' });
    const prompt = await hook('gemini', 'gm-1', 'before-agent');
    assert.match(context(prompt), new RegExp(`${a.id} .*gemini: hello`));
    const urgent = await sendMessage({
      agent_session: 'cc-a',
      to: 'gm-1',
      body: 'gemini: urgent one',
      urgent: true,
    });
    assert.equal(
      await hook('gemini', 'gm-1', 'before-tool-write-file', {
        tool_input: { file_path: `${t.dir}/src/gemini-own.ts`, content: 'x' },
      }),
      null,
      'a BeforeTool answer that refuses nothing cannot reach the model: the message waits',
    );
    const after = await hook('gemini', 'gm-1', 'after-tool-replace');
    assert.match(context(after), new RegExp(`${urgent.id} \\[urgent\\].*gemini: urgent one`));

    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/hooks',
      headers: host,
      payload: { conflicts: 'block' },
    });
    try {
      const stop = await sendMessage({
        agent_session: 'cc-a',
        to: 'gm-1',
        body: 'gemini: stop',
        urgent: true,
      });
      const denied = await hook('gemini', 'gm-1', 'before-tool-write-file', {
        tool_input: { file_path: `${t.dir}/src/shared.ts`, content: 'x' },
      });
      assert.equal(denied?.decision, 'deny');
      assert.match(String(denied?.reason), /src\/shared\.ts/);
      assert.match(String(denied?.reason), new RegExp(`${stop.id} \\[urgent\\].*gemini: stop`));
    } finally {
      await t.app.inject({
        method: 'PATCH',
        url: '/api/settings/hooks',
        headers: host,
        payload: { conflicts: 'warn' },
      });
    }
  });
});

describe('bounded, redacted, threaded', () => {
  test('about 2 KB a hook answer, "N more: cos_inbox", and every message in exactly one context', async () => {
    await start('cc-c');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push(
        (await sendMessage({ agent_session: 'cc-a', to: 'cc-c', body: `note ${i}: ${'x'.repeat(500)}` })).id,
      );
    const seen: string[] = [];
    const rounds: { carried: number; more: number }[] = [];
    for (let round = 0; round < 10 && seen.length < ids.length; round++) {
      const text = context(await hook('claude-code', 'cc-c', 'post-tool-use-edit'));
      assert.ok(text.length <= 2100, `${text.length} characters`);
      const carried = ids.filter((id) => text.includes(id));
      seen.push(...carried);
      rounds.push({ carried: carried.length, more: Number(/(\d+) more: cos_inbox/.exec(text)?.[1] ?? 0) });
    }
    assert.ok(rounds.length > 2, 'eight such messages take more than two answers');
    assert.equal(rounds[0]!.more, ids.length - rounds[0]!.carried, 'the first answer says how many wait');
    assert.equal(rounds.at(-1)!.more, 0);
    assert.deepEqual([...seen].sort(), [...ids].sort(), 'each once');
    assert.equal(new Set(seen).size, seen.length);
    assert.equal((await inbox('cc-c', '&unread_only=true')).unread, 8);

    // A body longer than the bound is cut where it must be, saying where the whole of it is.
    const long = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-c',
      body: `start ${'y'.repeat(8000)} end`,
    });
    const text = context(await hook('claude-code', 'cc-c', 'user-prompt-submit'));
    assert.ok(text.length <= 2100);
    assert.match(text, new RegExp(`${long.id} .*start y+… \\(cut here: cos_inbox has it whole\\)`));
    assert.equal((await inbox('cc-c', '&limit=1')).messages[0]?.body.endsWith(' end'), true);
  });

  test('a token, a key and a password in a subject or body are never stored, shown or delivered', async () => {
    const body =
      'deploy with GITHUB_TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab and PGPASSWORD=hunter2hunter2, key sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
    const sent = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-c',
      subject: 'token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab',
      body,
    });
    for (const secret of ['ghp_AbCdEf', 'hunter2', 'sk-ant-api03'])
      assert.ok(!JSON.stringify(sent).includes(secret), `${secret} is not in the answer`);
    assert.match(sent.body, /GITHUB_TOKEN=\[REDACTED\]/);
    const stored = JSON.stringify(await inbox('cc-c'));
    const delivered = context(await hook('claude-code', 'cc-c', 'user-prompt-submit'));
    assert.match(delivered, new RegExp(sent.id));
    for (const secret of ['ghp_AbCdEf', 'hunter2', 'sk-ant-api03']) {
      assert.ok(!stored.includes(secret), `${secret} is not stored`);
      assert.ok(!delivered.includes(secret), `${secret} is not delivered`);
    }
    if (!t.hub.services.team) {
      const raw = JSON.stringify(t.hub.db.prepare('SELECT * FROM messages').all());
      for (const secret of ['ghp_AbCdEf', 'hunter2', 'sk-ant-api03']) assert.ok(!raw.includes(secret));
    }
  });

  test('a reply names its thread; an unknown thread is not_found; threads list their replies', async () => {
    const q = await sendMessage({
      agent_session: 'cc-a',
      to: 'cc-b',
      subject: 'schema',
      body: 'who owns the schema?',
    });
    const r = await sendMessage({ agent_session: 'cc-b', to: 'cc-a', body: 'I do', thread_id: q.thread_id });
    assert.equal(r.thread_id, q.id);
    const reply = context(await hook('claude-code', 'cc-a', 'user-prompt-submit'));
    assert.match(reply, new RegExp(`${r.id} from .*"cc-b".*\\(thread ${q.id}\\): I do`));
    const missing = await refused('POST', '/api/messages', {
      agent_session: 'cc-a',
      to: 'cc-b',
      body: 'x',
      thread_id: 'm-nope-00000000',
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.error.category, 'not_found');
    assert.match(missing.error.message, /no thread "m-nope-00000000".*leave it out to start a thread/);
    await recorded();
    const { threads } = await rest<{
      threads: { thread_id: string; subject: string | null; count: number; messages: Sent[] }[];
    }>('GET', '/api/messages/threads');
    const thread = threads.find((x) => x.thread_id === q.id);
    assert.equal(thread?.subject, 'schema');
    assert.equal(thread?.count, 2);
    assert.deepEqual(
      thread?.messages.map((m) => m.body),
      ['who owns the schema?', 'I do'],
    );
    assert.ok(thread?.messages[1]?.recipients[0]?.delivered_at, 'the page sees the reply was delivered');
  });
});

describe('whom a message goes to', () => {
  test('"task:TASK-n" reaches its claimant; a task nobody claimed, an unknown agent and bad input are refused', async () => {
    writeFileSync(join(t.config.stateDir, 'board.json'), JSON.stringify({ wip: { in_progress: 20 } }));
    await t.hub.services.board.start();
    for (const title of ['Claimed task', 'Unclaimed task']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/board/tasks',
        headers: host,
        payload: { title, labels: title === 'Claimed task' ? ['ready'] : [], priority: 'P1' },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const claimed = await rest<{ claimed: boolean; task: { id: string } }>('POST', '/api/board/claim-next', {
      agent_session: 'cc-b',
    });
    assert.ok(claimed.claimed);
    const sent = await sendMessage({
      agent_session: 'cc-a',
      to: `task:${claimed.task.id}`,
      body: 'how far is it?',
    });
    assert.deepEqual(
      sent.recipients.map((r) => r.agent),
      ['cc-b'],
    );
    assert.equal(sent.to, `task:${claimed.task.id}`);
    assert.match(
      context(await hook('claude-code', 'cc-b', 'user-prompt-submit')),
      /sent to task:.*how far is it\?/,
    );

    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ to: 'task:TASK-2' }, 404, 'not_found', /TASK-0*2 is icebox, claimed by nobody/],
      [{ to: 'task:TASK-999' }, 404, 'not_found', /no task TASK-999 on the board/],
      [{ to: 'task:nonsense' }, 400, 'validation', /names no task/],
      [{ to: 'nobody-here' }, 404, 'not_found', /no agent "nobody-here" is known.*cos_presence_query/],
      [{ to: 'cc-b', body: '€'.repeat(3000) }, 400, 'validation', /9000 bytes.*at most 8192/],
      [{ to: 'cc-b', body: '   ' }, 400, 'validation', /must not be blank/],
      [{ to: 'cc-b', agent_session: 'all' }, 400, 'validation', /never from "all" or a task/],
    ];
    for (const [payload, status, category, message] of cases) {
      const r = await refused('POST', '/api/messages', { agent_session: 'cc-a', body: 'x', ...payload });
      assert.equal(r.status, status, JSON.stringify(payload));
      assert.equal(r.error.category, category);
      assert.match(r.error.message, message);
    }
  });

  test('"all" is every live agent at send time but the sender, one delivery each', async () => {
    const live = t.hub.services.agents
      .agents()
      .map((a) => a.id)
      .filter((id) => id !== 'cc-a');
    const sent = await sendMessage({ agent_session: 'cc-a', to: 'all', body: 'standup in five' });
    assert.deepEqual(sent.recipients.map((r) => r.agent).sort(), [...live].sort());
    assert.ok(!sent.recipients.some((r) => r.agent === 'cc-a'));
    await start('cc-late');
    assert.equal(
      await hook('claude-code', 'cc-late', 'user-prompt-submit'),
      null,
      'an agent arriving later does not get it',
    );
    assert.match(
      context(await hook('claude-code', 'cc-c', 'user-prompt-submit')),
      /sent to all.*standup in five/,
    );
    assert.doesNotMatch(context(await hook('claude-code', 'cc-c', 'user-prompt-submit')), /standup/);
  });

  test('a person sends through REST as "human"; a message to human is a notification the page acks', async () => {
    const fromPerson = await sendMessage({ to: 'cc-b', body: 'please stop and rebase', urgent: true });
    assert.equal(fromPerson.from, 'human');
    const pre = context(await hook('claude-code', 'cc-b', 'pre-tool-use-bash'));
    assert.match(pre, /from a person on the hub's page \(reply to "human"\).*please stop and rebase/);

    const before = (await inbox('human', '&unread_only=true')).unread;
    const toPerson = await sendMessage({
      agent_session: 'cc-b',
      to: 'human',
      subject: 'done',
      body: 'rebased',
    });
    assert.deepEqual(toPerson.recipients, [{ agent: 'human', delivered_at: null, acked_at: null }]);
    const notes = await inbox('human', '&unread_only=true');
    assert.equal(notes.unread, before + 1);
    assert.equal(notes.messages[0]?.id, toPerson.id);
    assert.equal(notes.messages[0]?.from, 'cc-b');
    const done = await ack('human', [toPerson.id]);
    assert.equal(done.unread, before);
  });

  test('acking another recipient’s message is not_found and acks nothing; acking twice changes nothing', async () => {
    const m = await sendMessage({ agent_session: 'cc-a', to: 'cc-b', body: 'for b only' });
    const own = await sendMessage({ agent_session: 'cc-b', to: 'cc-c', body: 'for c' });
    const r = await refused('POST', '/api/messages/ack', { agent_session: 'cc-c', ids: [own.id, m.id] });
    assert.equal(r.status, 404);
    assert.equal(r.error.category, 'not_found');
    assert.match(r.error.message, new RegExp(`not in agent "cc-c"'s inbox: ${m.id}.*nothing was acked`));
    assert.equal(
      (await inbox('cc-c', '&unread_only=true')).messages.some((x) => x.id === own.id),
      true,
    );
    assert.equal(
      (await inbox('cc-b', '&unread_only=true')).messages.some((x) => x.id === m.id),
      true,
    );
    const once = await ack('cc-b', [m.id]);
    const twice = await ack('cc-b', [m.id]);
    assert.deepEqual(twice.acked, once.acked);
  });

  test('a sender may send 30 a minute; the 31st is transient and retryable, and says when to retry', async () => {
    for (let i = 0; i < 30; i++) await sendMessage({ agent_session: 'flood-1', to: 'human', body: `n${i}` });
    const r = await refused('POST', '/api/messages', {
      agent_session: 'flood-1',
      to: 'human',
      body: 'one more',
    });
    assert.equal(r.status, 503);
    assert.equal(r.error.category, 'transient');
    assert.equal(r.error.retryable, true);
    assert.match(r.error.message, /sent 30 messages in the last minute.*retry in \d+ s \(nothing was sent\)/);
    // Another sender is not held back by it.
    await sendMessage({ agent_session: 'flood-2', to: 'human', body: 'hello' });
  });
});
