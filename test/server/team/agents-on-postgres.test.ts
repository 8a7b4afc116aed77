// The agents' and hooks' tests again, every hub in a team on a real PostgreSQL (test/support/hub.ts reads
// COS_TEST_HUB_STORE): hook ingest, presence, edit conflicts, reclaim, the connect plans, file
// reservations and messages, with each event, agent, tool call and message also going to the team and
// each reservation granted in PostgreSQL. Files without a hub (fixtures, redaction) run once.
import assert from 'node:assert/strict';
import { test } from 'node:test';

// Set before the hub support module loads (the imports below are dynamic for that reason).
process.env.COS_TEST_HUB_STORE = 'postgres';

await import('../hooks/ingest.test.ts');
await import('../hooks/conflicts.test.ts');
await import('../hooks/reclaim.test.ts');
await import('../hooks/connect.test.ts');
await import('../hooks/reservations.test.ts');
await import('../hooks/messages.test.ts');

// That the hubs above were in a team: an event this file's kind of hub ingests is in PostgreSQL.
const { startTestHub } = await import('../../support/hub.ts');
const { fixture } = await import('../../support/hooks.ts');

test('the hubs of this run are in a team: their hook events reach PostgreSQL', async () => {
  const t = await startTestHub({ env: { COS_RATE_LIMIT_RPS: '0' } });
  try {
    const team = t.hub.services.team;
    if (!team) throw new Error('the hub has no team');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/hooks/events?client=claude-code',
      headers: { host: '127.0.0.1' },
      payload: fixture('claude-code', 'session-start', t.dir, { session_id: 'on-postgres-check' }),
    });
    assert.equal(res.statusCode, 200, res.body);
    await team.drain();
    const rows = await team.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM team_hook_events WHERE team = $1 AND agent = $2',
      [team.key, 'on-postgres-check'],
    );
    assert.equal(rows[0]?.n, 1);
  } finally {
    await t.close();
  }
});
