// Edit conflicts between several agents posting at once over real HTTP: an agent about to edit a file
// another live agent edited within the window is warned (or refused), naming who and when; its own
// edits, ended agents and old edits never count; the stream carries every conflict.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { openSse } from '../../support/sse.ts';

let clock = Date.parse('2026-11-30T12:00:00Z');
let t: TestHub;
before(async () => {
  t = await startTestHub({ listen: true, now: () => clock, env: { COS_RATE_LIMIT_RPS: '0' } });
});
after(() => t.close());

const AGENTS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];

async function hook(agent: string, name: 'pre-tool-use-edit' | 'post-tool-use-edit', file: string) {
  const payload = fixture('claude-code', name, t.dir, {
    session_id: agent,
    tool_input: { file_path: `${t.dir}/${file}`, old_string: 'a', new_string: 'b' },
  });
  const res = await fetch(`${t.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as {
    systemMessage?: string;
    hookSpecificOutput?: {
      additionalContext?: string;
      permissionDecision?: string;
      permissionDecisionReason?: string;
    };
  };
}

const setMode = (conflicts: string) =>
  t.app.inject({
    method: 'PATCH',
    url: '/api/settings/hooks',
    headers: { host: '127.0.0.1' },
    payload: { conflicts },
  });

test('six agents at once: each edits its own file without conflict, then all but the first are warned off the shared one', async () => {
  const own = await Promise.all(
    AGENTS.map(async (a) => [
      await hook(a, 'pre-tool-use-edit', `src/${a}.ts`),
      await hook(a, 'post-tool-use-edit', `src/${a}.ts`),
    ]),
  );
  for (const [pre] of own) assert.deepEqual(pre, {}, 'nobody else holds an agent’s own file');

  const sse = await openSse(`${t.url}/api/stream/events`);
  await hook('a1', 'post-tool-use-edit', 'src/shared.ts');
  const answers = await Promise.all(AGENTS.map((a) => hook(a, 'pre-tool-use-edit', 'src/shared.ts')));
  assert.deepEqual(answers[0], {}, 'the agent that edited it is not warned about itself');
  for (const [i, a] of answers.entries()) {
    if (i === 0) continue;
    assert.match(
      String(a.systemMessage),
      /src\/shared\.ts was edited less than a minute ago by claude-code a1[.;]/,
    );
    assert.equal(a.hookSpecificOutput?.additionalContext, a.systemMessage);
    assert.equal(
      a.hookSpecificOutput?.permissionDecision,
      undefined,
      'a warning takes no permission decision',
    );
  }
  const streamed = await sse.waitFor(
    () => sse.events.filter((e) => e.event === 'agent-conflict').length >= 5,
  );
  assert.ok(streamed);
  const conflicts = sse.events
    .filter((e) => e.event === 'agent-conflict')
    .map((e) => (e.data as { agent: string }).agent);
  assert.deepEqual(conflicts.sort(), ['a2', 'a3', 'a4', 'a5', 'a6']);
  sse.close();
});

test('in block mode the same edits are refused; two agents editing each other’s files both hear about it', async () => {
  await setMode('block');
  const refused = await Promise.all(['a2', 'a3'].map((a) => hook(a, 'pre-tool-use-edit', 'src/shared.ts')));
  for (const r of refused) {
    assert.equal(r.hookSpecificOutput?.permissionDecision, 'deny');
    assert.match(String(r.hookSpecificOutput?.permissionDecisionReason), /claude-code a1\b/);
  }
  const [x, y] = await Promise.all([
    hook('a4', 'pre-tool-use-edit', 'src/a5.ts'),
    hook('a5', 'pre-tool-use-edit', 'src/a4.ts'),
  ]);
  assert.match(String(x.hookSpecificOutput?.permissionDecisionReason), /src\/a5\.ts .* claude-code a5\b/);
  assert.match(String(y.hookSpecificOutput?.permissionDecisionReason), /src\/a4\.ts .* claude-code a4\b/);
  const stored = (
    await t.app.inject({
      method: 'GET',
      url: '/api/agents/activity?kind=conflict&limit=200',
      headers: { host: '127.0.0.1' },
    })
  ).json().data.entries as { agent: string; ok: boolean; summary: string }[];
  assert.ok(stored.filter((e) => !e.ok && e.summary.startsWith('refused')).length >= 4);
  await setMode('warn');
});

test('an ended agent holds nothing, and an edit older than the window is no conflict', async () => {
  await fetch(`${t.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture('claude-code', 'session-end', t.dir, { session_id: 'a1' })),
  });
  assert.deepEqual(await hook('a2', 'pre-tool-use-edit', 'src/shared.ts'), {});
  clock += 16 * 60_000; // past the 15-minute window; a3's edit of src/a3.ts is old now
  assert.deepEqual(await hook('a4', 'pre-tool-use-edit', 'src/a3.ts'), {});
});

test('a file edited by many agents: the warning names three and counts the rest, the event keeps the newest twenty', async () => {
  clock += 1000;
  const crowd = Array.from({ length: 25 }, (_, i) => `crowd-${String(i).padStart(2, '0')}`);
  for (const a of crowd) {
    clock += 10;
    await hook(a, 'post-tool-use-edit', 'src/crowded.ts');
  }
  const answer = await hook('late', 'pre-tool-use-edit', 'src/crowded.ts');
  assert.match(String(answer.systemMessage), /by claude-code crowd-24.*crowd-23.*crowd-22.* \(and 22 more\)/);
  const [event] = (
    await t.app.inject({
      method: 'GET',
      url: '/api/agents/activity?kind=conflict&agent=late&limit=5',
      headers: { host: '127.0.0.1' },
    })
  ).json().data.entries as { detail: { hits: { agent: string }[]; more_hits?: number } }[];
  assert.equal(event?.detail.hits.length, 20);
  assert.deepEqual(
    event.detail.hits.map((h) => h.agent),
    crowd.slice(5).reverse(),
  );
  assert.equal(event.detail.more_hits, 5);
});
