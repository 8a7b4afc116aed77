// Messages across the machines of a team, on a real PostgreSQL with real hubs on clones of one origin: a
// message sent on hub A to an agent reporting to hub B enters that agent's next hook answer on B once,
// and never again on either hub; inboxes and acks read and write the team's records from any hub, and
// each hub's stream says so; a task claimed on B is addressed from A by its id; a hub that was down
// when a message was sent delivers it once it is back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixture } from '../../support/hooks.ts';
import { type TestDatabase, teamDatabaseUrl } from '../../support/postgres.ts';
import { openSse } from '../../support/sse.ts';
import {
  eventually,
  restData,
  startTeamHub,
  type TeamHub,
  type TeamRepos,
  teamRepos,
} from '../../support/team.ts';

interface Answer {
  hookSpecificOutput?: { hookEventName?: string; additionalContext?: string };
}
interface Sent {
  id: string;
  from_machine: string;
  recipients: { agent: string }[];
}
interface Inbox {
  messages: { id: string; from: string; delivered_at: string | null; acked_at: string | null }[];
  unread: number;
}

const rest = restData;

async function hook(h: TeamHub, session: string, name: string): Promise<string> {
  const res = await fetch(`${h.url}/api/hooks/events?client=claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fixture('claude-code', name, h.config.repo, { session_id: session })),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as Answer).hookSpecificOutput?.additionalContext ?? '';
}

const knows = (h: TeamHub, agent: string) =>
  eventually(() => h.hub.services.agents.agents().some((a) => a.id === agent), 5000, `${agent} known`);
const inbox = (h: TeamHub, agent: string) =>
  rest<Inbox>(h, 'GET', `/api/messages/inbox?agent_session=${agent}`);

describe('messages across machines', () => {
  let repos: TeamRepos;
  let db: TestDatabase;
  let a: TeamHub;
  let b: TeamHub;

  before(async () => {
    repos = teamRepos(2, 2, 'team-messages');
    db = await teamDatabaseUrl();
    a = await startTeamHub(repos.clones[0]!, db.url, 'machine-a');
    b = await startTeamHub(repos.clones[1]!, db.url, 'machine-b');
  });
  after(async () => {
    await Promise.all([a, b].map((h) => h.close()));
    await db.drop();
    repos.remove();
  });

  test('sent on A to an agent reporting to B: in its next hook answer on B once, never again on either hub', async () => {
    await hook(a, 'on-a', 'session-start');
    await hook(b, 'on-b', 'session-start');
    await knows(a, 'on-b');
    const streamB = await openSse(`${b.url}/api/stream/events`);
    try {
      const sent = await rest<Sent>(a, 'POST', '/api/messages', {
        agent_session: 'on-a',
        to: 'on-b',
        body: 'from machine a',
      });
      assert.equal(sent.from_machine, 'machine-a');
      assert.deepEqual(
        sent.recipients.map((r) => r.agent),
        ['on-b'],
      );
      await streamB.waitFor(
        (e) => e.event === 'message-created' && (e.data as { id?: string }).id === sent.id,
        2000,
      );
      await eventually(() => b.hub.services.messages.waiting() > 0, 2000, 'B holds it');
      const first = await hook(b, 'on-b', 'user-prompt-submit');
      assert.match(first, new RegExp(`${sent.id} from .*on machine-a.*: from machine a`));
      assert.equal(await hook(b, 'on-b', 'post-tool-use-edit'), '', 'once on B');

      // The delivery reaches PostgreSQL (through B's outbox) and A's memory: A never delivers it either,
      // should the agent's events ever come to A.
      await eventually(
        async () => (await inbox(a, 'on-b')).messages.find((m) => m.id === sent.id)?.delivered_at,
        3000,
        'delivered_at in the team record',
      );
      await eventually(() => a.hub.services.messages.waiting() === 0, 3000, 'A lets it go');
      assert.equal(await hook(a, 'on-b', 'user-prompt-submit'), '', 'never again, on A either');
    } finally {
      streamB.close();
    }
  });

  test('inbox and ack across hubs: B’s agent acks on B, A reads it acked and its stream says so', async () => {
    const streamA = await openSse(`${a.url}/api/stream/events`);
    try {
      const sent = await rest<Sent>(a, 'POST', '/api/messages', { to: 'on-b', body: 'a person on A asks' });
      const onB = await eventually(
        async () => (await inbox(b, 'on-b')).messages.find((m) => m.id === sent.id),
        2000,
      );
      assert.equal(onB.from, 'human');
      await rest(b, 'POST', '/api/messages/ack', { agent_session: 'on-b', ids: [sent.id] });
      await streamA.waitFor(
        (e) => e.event === 'message-acked' && ((e.data as { ids?: string[] }).ids ?? []).includes(sent.id),
        2000,
      );
      assert.ok((await inbox(a, 'on-b')).messages.find((m) => m.id === sent.id)?.acked_at);
      // Acked before it entered a context: it never will.
      assert.doesNotMatch(await hook(b, 'on-b', 'user-prompt-submit'), new RegExp(sent.id));

      // The other way: B's agent writes to the people, who read and ack on A's page.
      const toPeople = await rest<Sent>(b, 'POST', '/api/messages', {
        agent_session: 'on-b',
        to: 'human',
        body: 'done on b',
      });
      const notes = await inbox(a, 'human');
      assert.equal(notes.messages[0]?.id, toPeople.id);
      const acked = await rest<{ unread: number }>(a, 'POST', '/api/messages/ack', {
        agent_session: 'human',
        ids: [toPeople.id],
      });
      assert.equal(acked.unread, 0);
      const ackedOther = await fetch(`${b.url}/api/messages/ack`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_session: 'on-a', ids: [toPeople.id] }),
      });
      assert.equal(ackedOther.status, 404, 'only its recipient acks it, on any hub');
    } finally {
      streamA.close();
    }
  });

  test('"task:TASK-n" claimed on B is resolved on A to B’s agent', async () => {
    const claim = await rest<{ claimed: boolean; task: { id: string } }>(b, 'POST', '/api/board/claim-next', {
      agent_session: 'on-b',
    });
    assert.ok(claim.claimed);
    const sent = await eventually(async () => {
      const res = await a.app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: { host: new URL(a.url).host },
        payload: { agent_session: 'on-a', to: `task:${claim.task.id}`, body: 'how is it going' },
      });
      return res.statusCode === 200 ? (res.json() as { data: Sent }).data : undefined;
    }, 3000);
    assert.deepEqual(
      sent.recipients.map((r) => r.agent),
      ['on-b'],
    );
    await eventually(() => b.hub.services.messages.waiting() > 0, 2000);
    assert.match(await hook(b, 'on-b', 'post-tool-use-edit'), /how is it going/);
  });

  test('a hub that was down when a message was sent delivers it when it is back', async () => {
    await b.close();
    const sent = await rest<Sent>(a, 'POST', '/api/messages', {
      agent_session: 'on-a',
      to: 'on-b',
      body: 'while you were away',
    });
    b = await startTeamHub(repos.clones[1]!, db.url, 'machine-b');
    await eventually(() => b.hub.services.messages.waiting() > 0, 3000, 'B loads what waits');
    assert.match(await hook(b, 'on-b', 'user-prompt-submit'), new RegExp(`${sent.id} .*while you were away`));
    assert.equal(await hook(b, 'on-b', 'user-prompt-submit'), '');
  });
});
