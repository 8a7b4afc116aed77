import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Status } from '../../../server/board/model.ts';
import { ToolError } from '../../../server/errors.ts';
import { boardTools } from '../../../server/tools/board/index.ts';
import type { AnyTool } from '../../../server/tools/define.ts';
import { ok, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { makeTaskFiles } from '../../fixtures/board/make-tasks.ts';
import { api, makeCtx, openHub, removeRepo, type TestHub, tempRepo } from './helpers.ts';

const tool = (name: string): AnyTool => {
  const t = boardTools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

// biome-ignore lint/suspicious/noExplicitAny: tool inputs and outputs are read loosely in these tests
type Loose = any;

const call = async (
  hub: TestHub,
  name: string,
  input: Loose,
  transport: 'mcp' | 'rest' = 'mcp',
): Promise<Loose> => tool(name).handler(makeCtx(hub, transport, 'mcp-session-1'), input);

describe('board tools', () => {
  it("are the issue's tools, module tasks, layer tasks, with strict bounded input schemas and REST under /api/board", () => {
    assert.deepEqual(boardTools.map((t) => t.name).sort(), [
      'cos_task_board',
      'cos_task_board_config',
      'cos_task_changes',
      'cos_task_claim_next',
      'cos_task_create',
      'cos_task_daily',
      'cos_task_dependencies',
      'cos_task_dependents',
      'cos_task_edit',
      'cos_task_handoff',
      'cos_task_history',
      'cos_task_move',
      'cos_task_ready',
      'cos_task_reclaim',
      'cos_task_retro',
      'cos_task_search',
      'cos_task_show',
      'cos_task_wip_check',
      'cos_work_log_append',
    ]);
    for (const t of boardTools) {
      assert.equal(t.module, 'tasks');
      assert.equal(t.layer, 'tasks');
      assert.equal(t.input.additionalProperties, false, `${t.name} input is closed`);
      assert.ok(t.http?.path.startsWith('/api/board/'), `${t.name} has a REST binding`);
      assert.ok(t.description.length > 40);
      for (const [key, prop] of Object.entries(
        t.input.properties as Record<
          string,
          { type?: string; maxLength?: number; maximum?: number; description?: string; enum?: unknown }
        >,
      )) {
        if (prop.type === 'string' && prop.enum === undefined)
          assert.ok(prop.maxLength, `${t.name}.${key} is bounded`);
        if (key === 'limit') assert.equal(prop.maximum, 500);
      }
      for (const param of t.http?.path.match(/:(\w+)/g) ?? [])
        assert.ok(param.slice(1) in t.input.properties, `${t.name} ${param}`);
    }
    const bindings = Object.fromEntries(boardTools.map((t) => [t.name, `${t.http?.method} ${t.http?.path}`]));
    assert.equal(bindings.cos_task_board, 'GET /api/board/list');
    assert.equal(bindings.cos_task_show, 'GET /api/board/tasks/:id');
    assert.equal(bindings.cos_task_create, 'POST /api/board/tasks');
    assert.equal(bindings.cos_task_move, 'POST /api/board/tasks/:id/move');
    assert.equal(bindings.cos_task_edit, 'PATCH /api/board/tasks/:id');
    assert.equal(bindings.cos_task_search, 'GET /api/board/search');
    assert.equal(bindings.cos_task_board_config, 'GET /api/board/config');
  });

  describe('on a small board', () => {
    let hub: TestHub;
    before(() => {
      hub = openHub();
    });
    after(() => {
      hub.close();
      removeRepo(hub.repo);
    });

    it('create, show, edit, move, work log, history, search, dependencies through the handlers', async () => {
      const a = await call(hub, 'cos_task_create', {
        title: 'Parser handles tabs',
        kind: 'bug',
        priority: 'P1',
        ready: true,
        outcome: 'Tabs parse.',
      });
      assert.equal(a.task.id, 'TASK-1');
      const b = await call(
        hub,
        'cos_task_create',
        { title: 'Depends on the parser', depends_on: ['TASK-1'], agent_session: 'agent-x' },
        'rest',
      );
      assert.equal(b.task.id, 'TASK-2');
      const shown = await call(hub, 'cos_task_show', { id: '1' });
      assert.equal(shown.sections.outcome, 'Tabs parse.');
      assert.equal(shown.path, 'docs/tasks/TASK-1-parser-handles-tabs.md');
      const edited = await call(hub, 'cos_task_edit', {
        id: 'TASK-1',
        expected_version: 1,
        add_labels: ['parser'],
        acceptance: 'Given tabs\nWhen parsed\nThen fine',
      });
      assert.deepEqual(edited.changed.sort(), ['acceptance', 'labels']);
      const claimed = await call(hub, 'cos_task_claim_next', {});
      assert.equal(claimed.task.id, 'TASK-1');
      assert.equal(
        claimed.task.agent_session,
        'mcp-session-1',
        'the MCP session stands in for a missing agent_session',
      );
      await call(hub, 'cos_work_log_append', {
        id: 'TASK-1',
        text: 'found the bug',
        agent_session: 'agent-y',
      });
      const moved = await call(hub, 'cos_task_move', {
        id: 'TASK-1',
        to: 'testing',
        reason: 'ready for review',
      });
      assert.equal(moved.new_status, 'testing');
      const history = await call(hub, 'cos_task_history', { id: 'TASK-1' });
      assert.deepEqual(
        history.events.map((e: { type: string }) => e.type),
        ['created', 'edit', 'status', 'work_log', 'status'],
      );
      assert.equal(history.events[4].reason, 'ready for review');
      assert.equal(history.events[4].source, 'mcp');
      const found = await call(hub, 'cos_task_search', { query: 'tabs' });
      assert.equal(found.results[0].id, 'TASK-1');
      const deps = await call(hub, 'cos_task_dependencies', { id: 'TASK-2' });
      assert.equal(deps.all_complete, false);
      const dependents = await call(hub, 'cos_task_dependents', { id: 'TASK-1' });
      assert.deepEqual(
        dependents.dependents.map((d: { id: string }) => d.id),
        ['TASK-2'],
      );
      const ready = await call(hub, 'cos_task_ready', {});
      assert.equal(ready.total, 0);
      const wip = await call(hub, 'cos_task_wip_check', {});
      assert.equal(wip.columns.find((c: { status: string }) => c.status === 'testing').count, 1);
      const config = await call(hub, 'cos_task_board_config', {});
      assert.equal(config.tasks_dir, 'docs/tasks');
      const events = hub.received
        .filter((e) => e.type === 'task-updated')
        .map((e) => e.data as { source: string; change: string });
      assert.deepEqual(
        events.map((e) => e.source),
        ['mcp', 'api', 'mcp', 'mcp', 'mcp', 'mcp'], // the REST create is source api
      );
      assert.deepEqual(
        events.map((e) => e.change),
        ['created', 'created', 'edited', 'claimed', 'work_log', 'moved'],
      );
    });

    it('answers typed errors whose messages say what to do, with no absolute path', async () => {
      const cases: [string, unknown, string, RegExp][] = [
        [
          'cos_task_show',
          { id: 'TASK-999' },
          'not_found',
          /TASK-999 does not exist; cos_task_board or cos_task_search/,
        ],
        [
          'cos_task_move',
          { id: 'TASK-2', to: 'complete' },
          'validation',
          /allowed from icebox: in_progress, emergency, archive/,
        ],
        [
          'cos_task_edit',
          { id: 'TASK-2', expected_version: 9, title: 'x' },
          'validation',
          /is at version 1, not 9/,
        ],
        ['cos_task_edit', { id: 'TASK-2', depends_on: ['TASK-2'] }, 'validation', /cannot depend on itself/],
        ['cos_task_edit', { id: 'TASK-1', depends_on: ['TASK-2'] }, 'validation', /cycle/],
        ['cos_task_create', { title: 'x', depends_on: ['TASK-77'] }, 'validation', /do not exist: TASK-77/],
        ['cos_task_search', { query: '!!!' }, 'validation', /no words/],
        ['cos_task_board', { cursor: 'bogus' }, 'validation', /cursor is not one this board issued/],
      ];
      for (const [name, input, category, re] of cases) {
        const label = `${name} ${JSON.stringify(input)}`;
        await assert.rejects(
          call(hub, name, input),
          (err: unknown) => {
            if (!(err instanceof ToolError)) throw err;
            assert.ok(err instanceof ToolError, label);
            assert.equal(err.category, category, `${label}: ${err.message}`);
            assert.match(err.message, re);
            assert.ok(!err.message.includes(hub.repo), 'no absolute path');
            return true;
          },
          label,
        );
      }
    });
  });

  describe('list tools under the agent budget', () => {
    let hub: TestHub;
    before(async () => {
      hub = openHub();
      for (let i = 0; i < 150; i++)
        await hub.board.create(
          { title: `Budget ${'padding '.repeat(20)}${i}`, ready: true, outcome: 'budget '.repeat(40) },
          api,
        );
      for (let i = 0; i < 12; i++)
        await hub.board.appendWorkLog('TASK-1', `entry ${i} ${'x'.repeat(9000)}`, {}, api);
    });
    after(() => {
      hub.close();
      removeRepo(hub.repo);
    });

    it('search, ready and history cut their own lists to fit, and their offsets still reach every item', async () => {
      const walk = async (
        name: string,
        input: Record<string, unknown>,
        list: string,
        next: (d: Loose) => Record<string, unknown> | null,
      ) => {
        const seen: unknown[] = [];
        let extra: Record<string, unknown> | null = {};
        for (let pages = 0; extra !== null && pages < 100; pages++) {
          const data = await call(hub, name, { ...input, ...extra });
          const text = JSON.stringify(ok(data, { meta: { layer: 'tasks' } }));
          assert.ok(text.length <= TOKEN_BUDGET_CHARS, `${name} page ${pages}: ${text.length}`);
          seen.push(...data[list]);
          extra = next(data);
        }
        return seen;
      };
      const results = await walk('cos_task_search', { query: 'budget', limit: 500 }, 'results', (d) =>
        d.next_offset === null ? null : { offset: d.next_offset },
      );
      assert.equal(new Set(results.map((r) => (r as { id: string }).id)).size, 150);
      const ready = await walk('cos_task_ready', { limit: 500 }, 'tasks', (d) =>
        d.next_offset === null ? null : { offset: d.next_offset },
      );
      assert.equal(ready.length, 150);
      const events = await walk('cos_task_history', { id: 'TASK-1', limit: 500 }, 'events', (d) =>
        d.next_after_seq === null ? null : { after_seq: d.next_after_seq },
      );
      assert.equal(events.length, 13);
    });
  });

  describe('on a board of 5,000 tasks', () => {
    let hub: TestHub;
    before(() => {
      const repo = tempRepo();
      makeTaskFiles(`${repo}/docs/tasks`, 5000);
      hub = openHub({ repo });
    });
    after(() => {
      hub.close();
      removeRepo(hub.repo);
    });

    it('fits the 32 KB MCP budget untrimmed, and meta.next_cursor walks every card exactly once', async () => {
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const data = await call(hub, 'cos_task_board', { limit: 500, ...(cursor ? { cursor } : {}) });
        const envelope = ok(data, { meta: { layer: 'tasks' } });
        const text = JSON.stringify(envelope);
        assert.ok(text.length <= TOKEN_BUDGET_CHARS, `page ${pages} is ${text.length} chars`);
        assert.equal(envelope.data.meta.truncated, false, 'the generic trimmer had nothing to cut');
        if (pages === 0) {
          assert.equal(data.total, 5000);
          assert.ok(data.meta.cards_held_back > 0, 'the page says cards were held back');
        }
        for (const column of data.columns)
          for (const card of column.cards) {
            assert.ok(!seen.has(card.id), `${card.id} seen twice`);
            assert.equal(card.status, column.status);
            seen.add(card.id);
          }
        cursor = data.meta.next_cursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 1000);
      assert.equal(seen.size, 5000);
    });

    it('walks one column with its own cursor in priority order', async () => {
      const ids: string[] = [];
      const priorities: string[] = [];
      let cursor: string | undefined;
      do {
        const data = await call(hub, 'cos_task_board', {
          status: 'testing',
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        assert.equal(data.columns.length, 1);
        for (const c of data.columns[0].cards) {
          ids.push(c.id);
          priorities.push(c.priority);
        }
        cursor = data.columns[0].next_cursor ?? undefined;
      } while (cursor);
      assert.equal(ids.length, 833);
      assert.deepEqual(priorities, [...priorities].sort());
    });

    it('gives REST every card asked for, unbudgeted', async () => {
      const data = await call(hub, 'cos_task_board', { limit: 500, include_archive: true }, 'rest');
      const perColumn = Object.fromEntries(
        data.columns.map((c: { status: Status; cards: unknown[] }) => [c.status, c.cards.length]),
      );
      assert.equal(perColumn.icebox, 500);
      assert.equal(perColumn.in_progress, 500);
      assert.equal(perColumn.archive, 0);
      assert.equal(data.meta.cards_held_back, undefined);
    });

    it('filters by kind, swimlane, epic and label', async () => {
      const data = await call(hub, 'cos_task_board', {
        kind: 'bug',
        swimlane: 'web',
        label: 'ready',
        epic: 'epic-3',
        limit: 500,
      });
      const cards = data.columns.flatMap(
        (c: { cards: { kind: string; swimlane: string; labels: string[]; epic: string }[] }) => c.cards,
      );
      assert.ok(cards.length > 0);
      for (const c of cards) {
        assert.equal(c.kind, 'bug');
        assert.equal(c.swimlane, 'web');
        assert.equal(c.epic, 'epic-3');
        assert.ok(c.labels.includes('ready'));
      }
      assert.equal(data.total, cards.length);
    });
  });
});
