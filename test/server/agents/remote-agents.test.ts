// The parts of a team that live in memory, on a real hub.db: another machine's agent taken from its
// hub's reports (newer wins, its edits remembered, an end ends it, this hub's own agent is never
// overwritten), edit conflicts naming that agent's machine and branch, a claim made on another machine
// holding its files even for an agent this hub never heard of, and the branch watcher following HEAD.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { describeConflicts, findConflicts } from '../../../server/agents/conflicts.ts';
import { AgentRegistry } from '../../../server/agents/registry.ts';
import { openDatabase } from '../../../server/db/open.ts';
import { watchBranch } from '../../../server/git/branch.ts';
import type { NormalizedEvent } from '../../../server/hooks/normalize.ts';
import { type AgentSessionRow, HookStore } from '../../../server/hooks/store.ts';
import { git } from '../../support/team.ts';

const dir = mkdtempSync(join(tmpdir(), 'cos-remote-agents-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = openDatabase(join(dir, 'hub.db'));
const store = new HookStore(db, 'machine-b');
let clock = 1_000_000;
const registry = new AgentRegistry(
  store,
  () => clock,
  () => 30 * 60_000,
);

const remote = (over: Partial<AgentSessionRow> = {}): AgentSessionRow => ({
  id: 'alpha',
  client: 'claude-code',
  model: null,
  cwd: null,
  started_at: clock - 1000,
  last_event_at: clock,
  activity: 'editing',
  events: 3,
  ended_at: null,
  end_reason: null,
  machine: 'machine-a',
  branch: 'feature/a',
  ...over,
});

const deps = (claims: Parameters<typeof findConflicts>[2]['claims'] = () => []) => ({
  registry,
  now: () => clock,
  windowMs: () => 15 * 60_000,
  claims,
  agentOf: (s: string) => (registry.get(s) ? s : null),
});

test('another machine’s agent: new once, its edits conflict naming machine and branch, an older report changes only edits', () => {
  const first = registry.applyRemote(remote(), [{ path: 'src/x.ts', at: clock }]);
  assert.equal(first.isNew, true);
  assert.equal(registry.applyRemote(remote()).isNew, false);
  const hits = findConflicts(['src/x.ts'], 'beta', deps());
  assert.equal(hits.length, 1);
  assert.equal(hits[0]?.machine, 'machine-a');
  assert.equal(hits[0]?.branch, 'feature/a');
  assert.match(
    describeConflicts(hits, clock),
    /src\/x\.ts was edited less than a minute ago by claude-code alpha on machine-a \(branch feature\/a\)/,
  );
  registry.applyRemote(remote({ last_event_at: clock - 500, activity: 'stale' }), [
    { path: 'src/y.ts', at: clock - 500 },
  ]);
  assert.equal(registry.get('alpha')?.activity, 'editing', 'an older report does not win');
  assert.equal(findConflicts(['src/y.ts'], 'beta', deps()).length, 1, 'but its edit counts');
  assert.deepEqual(findConflicts(['src/x.ts'], 'alpha', deps()), [], 'never about itself');
});

test('an end reported by its hub ends it; this hub’s own agent is never overwritten by a report', () => {
  clock += 1000;
  registry.applyRemote(remote({ last_event_at: clock, ended_at: clock, end_reason: 'exit' }));
  assert.equal(registry.get('alpha'), undefined);
  assert.equal(store.session('alpha')?.machine, 'machine-a', 'kept with its machine');

  const ev = {
    session: 'local',
    client: 'codex',
    event: 'SessionStart',
    kind: 'session_start',
    phase: null,
    tool: null,
    ok: null,
    summary: 'session started',
    files: [],
    detail: {},
  } as unknown as NormalizedEvent;
  registry.seen(ev, clock, [], 'main');
  registry.applyRemote(remote({ id: 'local', last_event_at: clock + 10, activity: 'theirs' }));
  const own = registry.get('local');
  assert.equal(own?.machine, null);
  assert.equal(own?.branch, 'main');
  assert.notEqual(own?.activity, 'theirs');
});

test('an edit is checked against the agents that touched its files: the newest first, none forgotten, ended or silent', () => {
  clock += 1000;
  // Five hundred agents of other machines, each editing a file of its own; three of them src/shared.ts.
  for (let i = 0; i < 500; i++)
    registry.applyRemote(remote({ id: `many-${i}`, last_event_at: clock + i }), [
      { path: `src/own-${i}.ts`, at: clock },
      ...(i % 200 === 7 ? [{ path: 'src/shared.ts', at: clock }] : []),
    ]);
  const shared = () => findConflicts(['src/shared.ts'], 'beta', deps()).map((h) => h.agent);
  assert.deepEqual(shared(), ['many-407', 'many-207', 'many-7'], 'most recently heard first');
  assert.deepEqual(
    findConflicts(['src/own-42.ts', 'src/shared.ts'], 'many-7', deps()).map((h) => [h.agent, h.path]),
    [
      ['many-407', 'src/shared.ts'],
      ['many-207', 'src/shared.ts'],
      ['many-42', 'src/own-42.ts'],
    ],
  );
  // An agent remembers its last 200 files: the oldest is forgotten by the check too.
  registry.applyRemote(
    remote({ id: 'many-207', last_event_at: clock + 207 }),
    Array.from({ length: 200 }, (_, k) => ({ path: `src/later-${k}.ts`, at: clock })),
  );
  assert.deepEqual(shared(), ['many-407', 'many-7']);
  assert.equal(findConflicts(['src/later-199.ts'], 'beta', deps())[0]?.agent, 'many-207');
  // Ended by its hub, and silent past the timeout (and the window): neither holds its files any more.
  registry.applyRemote(remote({ id: 'many-407', last_event_at: clock + 600, ended_at: clock + 600 }));
  assert.deepEqual(shared(), ['many-7']);
  clock += 31 * 60_000;
  assert.deepEqual(shared(), []);
  registry.sweep();
  assert.deepEqual(findConflicts(['src/own-42.ts'], 'beta', deps()), []);
});

test('a claim made on another machine holds its files, even for an agent this hub never heard of', () => {
  const claims = () => [
    { task: { id: 'TASK-7', title: 'Seven' }, agent: 'stranger', paths: ['src/held'], machine: 'machine-a' },
    { task: { id: 'TASK-8', title: 'Eight' }, agent: 'ghost', paths: ['src/ghost.ts'], machine: null },
  ];
  const hits = findConflicts(['src/held/a.ts', 'src/ghost.ts'], 'beta', deps(claims));
  assert.deepEqual(
    hits.map((h) => [h.path, h.agent, h.reason, h.machine]),
    [['src/held/a.ts', 'stranger', 'claimed', 'machine-a']],
    'this hub’s own claim by an agent it does not know counts for nothing, as alone',
  );
  assert.match(
    describeConflicts(hits, clock),
    /belongs to TASK-7 "Seven" claimed by agent stranger on machine-a[.;]/,
  );
});

test('the branch watcher reads the branch and follows a checkout', async () => {
  const repo = join(dir, 'repo');
  git(dir, 'init', '-q', '-b', 'main', repo);
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'first');
  const seen: (string | null)[] = [];
  const w = watchBranch(repo, (b) => seen.push(b));
  const current = () => w.current;
  try {
    await w.start();
    assert.equal(w.current, 'main');
    git(repo, 'checkout', '-q', '-b', 'feature/z');
    const until = Date.now() + 3000;
    while (current() !== 'feature/z' && Date.now() < until) await w.settled();
    assert.equal(current(), 'feature/z');
    assert.deepEqual(seen, ['feature/z']);
    git(repo, 'checkout', '-q', '--detach');
    const until2 = Date.now() + 3000;
    while (!String(current()).startsWith('detached at ') && Date.now() < until2) await w.settled();
    assert.match(String(current()), /^detached at [0-9a-f]+$/);
  } finally {
    w.close();
  }
  assert.equal(watchBranch(dir).current, null, 'before start, or outside git: null');
});

test('the hook store reads its own events and the other machines’ held in memory as one list: one order, one cursor, every filter, touches merged, none written', () => {
  const own = new HookStore(db, 'machine-b');
  const base = {
    client: 'claude-code' as const,
    event: 'PostToolUse',
    phase: 'post' as const,
    tool: 'Edit',
    detail: {},
    branch: null,
  };
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    const at = 5_000_000 + i;
    const mine = i % 2 === 0;
    const row = {
      ...base,
      at,
      agent: mine ? 'local-agent' : 'remote-agent',
      kind: i === 3 ? ('command' as const) : ('edit' as const),
      ok: i !== 3,
      summary: `event ${i}`,
      files: [{ path: i < 3 ? 'src/a.ts' : 'src/b.ts', role: 'edit' as const }],
      machine: mine ? 'machine-b' : 'machine-a',
    };
    ids.push(mine ? own.add(row) : own.addRemote(row));
  }
  const all = own.events({ since: 5_000_000, limit: 10 });
  assert.deepEqual(
    all.map((e) => e.summary),
    ['event 5', 'event 4', 'event 3', 'event 2', 'event 1', 'event 0'],
  );
  assert.deepEqual(
    all.map((e) => e.id),
    [...ids].reverse(),
  );
  // Pages follow the one cursor across both.
  const first = own.events({ since: 5_000_000, limit: 3 });
  const next = own.events({ since: 5_000_000, limit: 3, beforeId: first.at(-1)!.id });
  assert.deepEqual(
    [...first, ...next].map((e) => e.summary),
    all.map((e) => e.summary),
  );
  assert.deepEqual(
    own.events({ since: 5_000_000, machine: 'machine-a', limit: 10 }).map((e) => e.summary),
    ['event 5', 'event 3', 'event 1'],
  );
  assert.deepEqual(
    own.events({ since: 5_000_000, machine: 'machine-b', limit: 10 }).map((e) => e.summary),
    ['event 4', 'event 2', 'event 0'],
  );
  assert.deepEqual(
    own.events({ since: 5_000_000, failed: true, limit: 10 }).map((e) => e.summary),
    ['event 3'],
  );
  assert.deepEqual(
    own
      .events({ since: 5_000_000, path: 'src/a.ts', agent: 'remote-agent', limit: 10 })
      .map((e) => e.summary),
    ['event 1'],
  );
  const touches = own.touches({ path: 'src/b.ts', since: 5_000_000, limit: 10 });
  assert.deepEqual(
    touches.map((t) => [t.agent, t.times, t.last_at]),
    [
      ['remote-agent', 2, 5_000_005],
      ['local-agent', 1, 5_000_004],
    ],
  );
  // Only this hub's own events reach its database.
  own.flush();
  const written = db
    .prepare("SELECT count(*) FROM hook_events WHERE at >= 5000000 AND agent = 'remote-agent'")
    .pluck()
    .get();
  assert.equal(written, 0);
});
