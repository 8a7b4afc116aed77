// Issue #16, "Boards written by other tools": a board nobody here wrote (test/fixtures/board/foreign-board.ts)
// with zero-padded ids, odd file names, other tools' front matter, CRLF, byte-order marks and dates
// quoted and not; every card loads, keeps its id and its bytes, is reachable and searchable, and the
// doctor names only the files that are really broken.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TRANSITIONS } from '../../../server/board/model.ts';
import { doctor } from '../../../server/cli/doctor.ts';
import {
  type ForeignBoard,
  type ForeignTask,
  writeForeignBoard,
} from '../../fixtures/board/foreign-board.ts';
import type { TestHub as FullHub } from '../../support/hub.ts';
import {
  agent,
  api,
  openHub,
  removeRepo,
  startBoardHub,
  type TestHub,
  tempRepo,
  writeBoardJson,
} from './helpers.ts';

function foreignHub(count = 1000, width = 3): { hub: TestHub; board: ForeignBoard } {
  const repo = tempRepo('cos-foreign-');
  const board = writeForeignBoard(join(repo, 'docs', 'tasks'), count, width);
  // The fixture's columns are far over the default caps; WIP is not what these tests are about.
  writeBoardJson(repo, { wip: { in_progress: null, testing: null, emergency: null } });
  return { hub: openHub({ repo }), board };
}

const fileOf = (hub: TestHub, name: string) => readFileSync(join(hub.tasksDir, name), 'utf8');

/** Every card the board has, walking meta-less next_cursor pages of the service. */
function walk(hub: TestHub): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = hub.board.board({ include_archive: true, limit: 37, ...(cursor ? { cursor } : {}) });
    for (const c of page.columns) for (const card of c.cards) ids.push(card.id);
    if (page.next_cursor === null) return ids;
    cursor = page.next_cursor;
  }
  throw new Error('the cursors never ended');
}

describe('a board written by other tools', () => {
  let hub: TestHub;
  let board: ForeignBoard;
  const task = (n: number): ForeignTask => {
    const t = board.tasks[n - 1];
    assert.ok(t);
    return t;
  };
  before(() => {
    ({ hub, board } = foreignHub());
  });
  after(() => {
    hub.close();
    removeRepo(hub.repo);
  });

  it('zero-padded ids: every one of 1,000 cards loads with its id as the file writes it', () => {
    const ids = walk(hub);
    assert.equal(ids.length, 1000);
    assert.deepEqual(new Set(ids), new Set(board.tasks.map((t) => t.key)));
    assert.ok(ids.includes('TASK-001') && ids.includes('TASK-099') && ids.includes('TASK-1000'));
  });

  it('TASK-046, TASK-46 and 46 all name TASK-046, and every answer says TASK-046', async () => {
    for (const asked of ['TASK-046', 'TASK-46', 'task-046', '46', '046'])
      assert.equal(hub.board.show(asked).id, 'TASK-046', asked);
    const t = task(46);
    const moved = await hub.board.move('46', 'in_progress', {}, agent('a-46'));
    assert.equal(moved.task.id, 'TASK-046');
    assert.equal(moved.task.path, `docs/tasks/${t.name}`, 'the file keeps its name');
    assert.match(fileOf(hub, t.name), /^id: TASK-046\r?$/m, 'and its id line');
    assert.equal(hub.board.history('TASK-46').task_id, 'TASK-046');
    assert.equal(hub.board.claimedBy('a-46')?.id, 'TASK-046');
    const column = hub.board.board({ status: 'in_progress', limit: 500 }).columns[0];
    assert.ok(column?.cards.some((c) => c.id === 'TASK-046'));
    // TASK-048 depends on TASK-045 as its file writes it.
    assert.deepEqual(hub.board.show('TASK-048').depends_on, ['TASK-045']);
    assert.deepEqual(
      hub.board.dependencies('TASK-048').dependencies.map((d) => d.id),
      ['TASK-045'],
    );
    assert.deepEqual(
      hub.board.dependents('45').dependents.map((d) => d.id),
      ['TASK-048'],
    );
    const found = hub.board.search(t.word);
    assert.deepEqual(
      found.results.map((r) => r.id),
      ['TASK-046'],
    );
  });

  it('file names with upper case, dots, spaces and non-ASCII are tasks, kept under their names', async () => {
    const odd = board.tasks.filter((t) => /[A-Z.\s]|[^ -~]/.test(t.name.replace(/^TASK-|\.md$/g, '')));
    assert.ok(odd.length > 500, `the fixture has odd names (${odd.length})`);
    // Hidden names are the writer's temp and released files, gone a moment later.
    const listing = () => new Set(readdirSync(hub.tasksDir).filter((n) => !n.startsWith('.')));
    const names = listing();
    for (const t of odd.slice(0, 40)) {
      const shown = hub.board.show(t.key);
      assert.equal(shown.path, `docs/tasks/${t.name}`, t.name);
      const edited = await hub.board.edit(t.key, { add_labels: ['seen'] }, {}, api);
      assert.equal(edited.task.path, `docs/tasks/${t.name}`);
    }
    assert.deepEqual(listing(), names, 'no file renamed, added or removed');
  });

  it('a file whose front matter has no id is reported and never rewritten; a README is not a task', () => {
    const before = fileOf(hub, 'Notes without an id.md');
    hub.board.reconcile();
    const errors = hub.board.parseErrors();
    const noId = errors.find((e) => e.path === 'docs/tasks/Notes without an id.md');
    assert.ok(noId, JSON.stringify(errors));
    assert.match(noId.reason, /\bid\b/);
    assert.equal(fileOf(hub, 'Notes without an id.md'), before);
    assert.equal(
      errors.find((e) => e.path === 'docs/tasks/README.md'),
      undefined,
      'README.md is not a broken task',
    );
  });

  it("other tools' fields, their version included, survive every write byte for byte; dates stay dates", async () => {
    // One task of each shape: a comment, version 1.0.3 and "2.x", a nested mapping, a URL, CRLF, a BOM.
    const sample = [6, 9, 13, 14, 18, 20, 21, 27, 28, 30, 35, 63, 70].map(task);
    for (const t of sample) {
      const original = fileOf(hub, t.name);
      const shown = hub.board.show(t.key);
      const e = await hub.board.edit(
        t.key,
        { title: `${t.title} (edited)` },
        { expected_version: shown.version },
        api,
      );
      assert.equal(e.task.version, shown.version + 1);
      await hub.board.appendWorkLog(t.key, 'looked at it', { expected_version: e.task.version }, agent('a'));
      const to = TRANSITIONS[t.status][0];
      assert.ok(to);
      await hub.board.move(t.key, to, { reason: 'test' }, api);
      const now = fileOf(hub, t.name);
      for (const line of t.foreignLines)
        assert.ok(now.includes(`\n${line}${t.crlf ? '\r' : ''}\n`), `${t.key}: ${line}`);
      if (t.createdLine)
        assert.ok(now.includes(`\n${t.createdLine}${t.crlf ? '\r' : ''}\n`), `${t.key}: created`);
      assert.equal(now.startsWith('\uFEFF'), t.bom, `${t.key}: byte-order mark`);
      if (t.crlf) assert.doesNotMatch(now.replace(/\r\n/g, ''), /\n/, `${t.key}: CRLF throughout`);
      // Lines the hub did not change are the original bytes (the body above the work log included).
      const head = original.slice(0, original.indexOf('## Outcome'));
      for (const line of head
        .split(/\r?\n/)
        .filter((l) => !/^(title|status|version|started|agent_session):/.test(l)))
        assert.ok(now.includes(line), `${t.key}: kept ${JSON.stringify(line)}`);
    }
    assert.equal(hub.board.show('TASK-003').created, '2024-03-04', 'an unquoted date reads as written');
    assert.equal(hub.board.show('TASK-004').created, '2024-03-05T10:04:00Z');
    assert.equal(hub.board.show('TASK-005').created, '2024-03-05 10:00');
  });

  it('a stale expected_version is refused on a task whose version belongs to another tool', async () => {
    const t = task(12); // version: 1.0.3
    assert.ok(t.foreignLines.includes('version: 1.0.3'));
    const v = hub.board.show(t.key).version;
    const edited = await hub.board.edit(t.key, { title: 'Renamed once' }, { expected_version: v }, api);
    assert.equal(edited.task.version, v + 1);
    assert.equal(hub.board.show(t.key).version, v + 1, 'the index keeps the version');
    await assert.rejects(
      hub.board.edit(t.key, { title: 'Renamed twice' }, { expected_version: v }, api),
      /is at version \d+, not \d+/,
    );
    assert.ok(fileOf(hub, t.name).includes('\nversion: 1.0.3\n'));
  });

  it('search finds a card by the words of its title and body, non-ASCII ones included', () => {
    for (const t of board.tasks.filter((x) => x.n % 97 === 0))
      assert.equal(hub.board.search(t.word, { include_archive: true }).results[0]?.id, t.key, t.word);
    for (const [word, topic] of [
      ['überarbeiten', 'Café überarbeiten'],
      ['日本語のタスク', '日本語のタスク'],
      ['ñandú', 'Ñandú migration'],
    ] as const) {
      const found = hub.board.search(word, { include_archive: true, limit: 500 });
      const expected = board.tasks.filter((x) => x.title.startsWith(topic)).map((x) => x.key);
      assert.deepEqual(new Set(found.results.map((r) => r.id)), new Set(expected), word);
    }
  });

  it('new tasks follow the board: its padding and the next free number', async () => {
    const { hub: small, board: b } = foreignHub(50, 3);
    try {
      // 051–053 are taken by broken files (a new task never reuses a broken file's number).
      assert.ok(b.broken.some((x) => x.name.startsWith('TASK-053')));
      const created = await small.board.create({ title: 'Follows the convention' }, api);
      assert.equal(created.task.id, 'TASK-054');
      assert.equal(created.task.path, 'docs/tasks/TASK-054-follows-the-convention.md');
      assert.match(fileOf(small, 'TASK-054-follows-the-convention.md'), /^id: TASK-054$/m);
      assert.equal(small.board.show('54').id, 'TASK-054');
    } finally {
      small.close();
      removeRepo(small.repo);
    }
  });
});

describe('cos doctor on a board written by other tools', () => {
  async function run(repo: string): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      const hub = openHub({ repo, start: false });
      const code = await doctor(hub.config);
      hub.close();
      return { code, lines };
    } finally {
      console.log = log;
    }
  }

  it('names exactly the files that are really broken', async () => {
    const repo = tempRepo('cos-foreign-doctor-');
    try {
      const b = writeForeignBoard(join(repo, 'docs', 'tasks'), 300);
      const { code, lines } = await run(repo);
      const failing = lines.filter((l) => l.startsWith('FAIL') && l.includes('task file'));
      const named = failing.map((l) => b.broken.find((x) => l.includes(`docs/tasks/${x.name}:`))?.name);
      assert.equal(code, 1);
      assert.deepEqual(named.sort(), b.broken.map((x) => x.name).sort(), failing.join('\n'));
    } finally {
      removeRepo(repo);
    }
  });

  it('finds nothing wrong with a board whose files are all good', async () => {
    const repo = tempRepo('cos-foreign-doctor-');
    try {
      const b = writeForeignBoard(join(repo, 'docs', 'tasks'), 120);
      for (const x of b.broken) rmSync(join(repo, 'docs', 'tasks', x.name));
      const { lines } = await run(repo);
      const tasks = lines.filter((l) => l.includes('task file'));
      assert.deepEqual(
        tasks.filter((l) => l.startsWith('FAIL')),
        [],
      );
      assert.ok(
        tasks.some((l) =>
          /^ok .*task files .*120 indexed, every file parses; 1 markdown file .* is not a task$/.test(l),
        ),
        tasks.join('\n'),
      );
    } finally {
      removeRepo(repo);
    }
  });
});

describe('a board written by other tools, over MCP and REST', () => {
  let t: FullHub;
  let client: Client;
  let b: ForeignBoard;
  let close: () => Promise<void>;
  before(async () => {
    ({ t, client, close } = await startBoardHub((dir) => {
      b = writeForeignBoard(dir, 1000);
    }));
  });
  after(() => close());

  it('MCP: next_cursor walks every card, each under its own id; cos_task_show takes TASK-46', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const result = await client.callTool({
        name: 'cos_task_board',
        arguments: cursor ? { cursor, limit: 200 } : { limit: 200, include_archive: true },
      });
      const env = result.structuredContent as {
        ok: boolean;
        data: Record<string, unknown> & { meta: Record<string, unknown> };
      };
      assert.equal(env.ok, true, JSON.stringify(env));
      for (const column of env.data.columns as { cards: { id: string }[] }[])
        for (const c of column.cards) seen.add(c.id);
      cursor = (env.data.meta.next_cursor as string | null) ?? null;
      pages++;
    } while (cursor !== null && pages < 500);
    assert.deepEqual(seen, new Set(b.tasks.map((x) => x.key)));
    const shown = await client.callTool({ name: 'cos_task_show', arguments: { id: 'TASK-46' } });
    assert.equal((shown.structuredContent as { data: { id: string } }).data.id, 'TASK-046');
    const padded = await client.callTool({ name: 'cos_task_show', arguments: { id: 'TASK-0046' } });
    assert.equal((padded.structuredContent as { data: { id: string } }).data.id, 'TASK-046');
  });

  it('REST: /api/board/list with cursors reaches every card; /api/board/tasks/TASK-046 answers it', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor
        ? `cursor=${encodeURIComponent(cursor)}&limit=100`
        : 'limit=100&include_archive=true';
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/board/list?${q}`,
        headers: { host: '127.0.0.1:9188' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as {
        data: { columns: { cards: { id: string }[] }[] };
        meta: { next_cursor: string | null };
      };
      for (const column of body.data.columns) for (const c of column.cards) seen.add(c.id);
      cursor = body.meta.next_cursor;
      pages++;
    } while (cursor !== null && pages < 500);
    assert.equal(seen.size, 1000);
    for (const id of ['TASK-046', 'TASK-46', '46']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/board/tasks/${id}`,
        headers: { host: '127.0.0.1:9188' },
      });
      assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
      assert.equal(res.json().data.id, 'TASK-046');
    }
  });
});
