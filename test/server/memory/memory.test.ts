import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { ToolError } from '../../../server/errors.ts';
import { WEIGHTS } from '../../../server/memory/ranking.ts';
import { createMemoryService, type MemoryService } from '../../../server/memory/service.ts';
import { detailsTool } from '../../../server/tools/memory/details.ts';
import { forgetTool } from '../../../server/tools/memory/forget.ts';
import { forgetLogTool } from '../../../server/tools/memory/forget-log.ts';
import { memoryTools } from '../../../server/tools/memory/index.ts';
import { observationRecordTool } from '../../../server/tools/memory/observation-record.ts';
import { observationUpdateTool } from '../../../server/tools/memory/observation-update.ts';
import { MemorySearchInputSchema, memorySearchTool } from '../../../server/tools/memory/search.ts';
import { timelineTool } from '../../../server/tools/memory/timeline.ts';
import { runTool } from '../../../server/tools/run.ts';
import { budgetSize, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { MEMORY_STORES, type MemoryStoreKind } from './stores.ts';
import { makeTestHub } from './test-context.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

interface Hit {
  id: number;
  title: string;
  score: number;
  score_parts: Record<string, number>;
  snippet: string;
}
interface SearchAnswer {
  results: Hit[];
  meta: { match_mode: string; has_more: boolean; next_offset: number | null };
}

async function setup(kind: MemoryStoreKind, mcpSessionId = 'sess-a') {
  let clock = NOW;
  let service: MemoryService | undefined;
  const backing = await kind.open();
  const hub = makeTestHub(
    ({ db, ctx }) => {
      // These tests pin answers, not timing (the search budget has its own tests, in test/server/search):
      // a budget this loose keeps a loaded machine from turning an answer into `transient`.
      service = createMemoryService({
        db,
        team: backing.team,
        events: ctx.events,
        now: () => clock,
        searchBudgetMs: 60_000,
      });
      return { memory: service };
    },
    { mcpSessionId },
  );
  return {
    hub,
    memory: service!,
    cleanup: async () => {
      hub.cleanup();
      await backing.close();
    },
    setClock: (ms: number) => {
      clock = ms;
    },
    search: (input: Record<string, unknown>) => hub.call<SearchAnswer>(memorySearchTool, input),
    record: (input: Record<string, unknown>) =>
      hub.call<{
        observation: {
          id: number;
          merged_count: number;
          confidence: number;
          files: string[];
          impact: string;
        };
        merged: boolean;
      }>(observationRecordTool, input),
  };
}

async function rejectsWith(p: Promise<unknown>, category: string, pattern?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ToolError, `expected a ToolError, got ${String(err)}`);
    assert.equal(err.category, category);
    if (pattern) assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\/tmp\//, 'messages never carry absolute paths');
    return true;
  });
}

describe('memory tools', () => {
  test('every tool is in module memory, layer memory, with a closed input schema and a REST binding', () => {
    assert.equal(memoryTools.length, 7);
    for (const t of memoryTools) {
      assert.equal(t.module, 'memory');
      assert.equal(t.layer, 'memory');
      assert.equal(t.input.additionalProperties, false, t.name);
      assert.ok(t.http?.path.startsWith('/api/'), t.name);
    }
    assert.equal(memorySearchTool.http?.path, '/api/search/memory');
  });

  test('search limit is bounded 1-20 by the input schema', () => {
    assert.ok(Value.Check(MemorySearchInputSchema, { query: 'x', limit: 20 }));
    assert.ok(!Value.Check(MemorySearchInputSchema, { query: 'x', limit: 21 }));
    assert.ok(!Value.Check(MemorySearchInputSchema, { query: 'x', limit: 0 }));
    assert.ok(!Value.Check(MemorySearchInputSchema, { query: 'x', extra: 1 }));
  });
});

for (const kind of MEMORY_STORES) {
  describe(`on ${kind.name}`, () => {
    describe('ranking (golden)', () => {
      let s: Awaited<ReturnType<typeof setup>>;
      before(async () => {
        s = await setup(kind);
        const at = (days: number) => s.setClock(NOW - days * DAY);
        at(1);
        await s.record({
          title: 'WAL checkpoint stalls behind long readers',
          narrative: 'A reader holding a snapshot keeps the WAL growing; the checkpoint cannot finish.',
          type: 'pitfall',
          confidence: 0.9,
          impact: 'high',
        });
        at(90);
        await s.record({
          title: 'Notes on WAL checkpoint',
          narrative: 'Old notes about the WAL checkpoint and its checkpoint interval.',
          type: 'fact',
          confidence: 0.3,
          impact: 'low',
        });
        at(10);
        const c = await s.record({
          title: 'Checkpoint tuning',
          narrative: 'Run a passive WAL checkpoint after bulk imports.',
          type: 'pattern',
          confidence: 0.8,
          impact: 'critical',
          concepts: ['sqlite', 'wal'],
        });
        at(0);
        await s.record({ title: 'React hooks pattern', narrative: 'Keep effects small.', type: 'pattern' });
        for (let i = 0; i < 5; i++) await s.memory.details(c.observation.id);
        s.setClock(NOW);
      });
      after(() => s.cleanup());

      test('blends relevance with confidence, recency, impact and access into a pinned order and scores', async () => {
        const { results, meta } = await s.search({ query: 'WAL checkpoint' });
        assert.equal(meta.match_mode, 'words');
        // The old, low-confidence note has the best text match (both words in its title) and still comes last;
        // the critical, often-read pattern edges out the fresher pitfall. The order holds on both stores; the
        // relevance each engine gives (bm25 in SQLite, ts_rank in PostgreSQL) differs, so each pins its own.
        const golden = {
          sqlite: [
            ['Checkpoint tuning', 0.8882, 0.9671],
            ['WAL checkpoint stalls behind long readers', 0.8586, 0.914],
            ['Notes on WAL checkpoint', 0.6038, 1],
          ],
          postgres: [
            ['Checkpoint tuning', 0.9003, 0.9913],
            ['WAL checkpoint stalls behind long readers', 0.8517, 0.9002],
            ['Notes on WAL checkpoint', 0.6038, 1],
          ],
        };
        assert.deepEqual(
          results.map((r) => [r.title, r.score, r.score_parts.relevance]),
          golden[kind.name],
        );
      });

      test('each score is the documented weighted sum of its parts', async () => {
        const { results } = await s.search({ query: 'checkpoint' });
        assert.ok(results.length >= 3);
        for (const r of results) {
          const p = r.score_parts;
          const sum =
            WEIGHTS.relevance * p.relevance! +
            WEIGHTS.confidence * p.confidence! +
            WEIGHTS.recency * p.recency! +
            WEIGHTS.impact * p.impact! +
            WEIGHTS.access * p.access!;
          assert.ok(Math.abs(sum - r.score) < 0.001, `${r.title}: ${sum} vs ${r.score}`);
          for (const v of Object.values(p)) assert.ok(v >= 0 && v <= 1);
        }
        assert.equal(Math.max(...results.map((r) => r.score_parts.relevance!)), 1);
      });

      test('filters by type, confidence and age', async () => {
        const types = await s.search({ query: 'checkpoint', types: ['fact'] });
        assert.deepEqual(
          types.results.map((r) => r.title),
          ['Notes on WAL checkpoint'],
        );
        const conf = await s.search({ query: 'checkpoint', min_confidence: 0.85 });
        assert.deepEqual(
          conf.results.map((r) => r.title),
          ['WAL checkpoint stalls behind long readers'],
        );
        const age = await s.search({ query: 'checkpoint', max_age_days: 30 });
        assert.equal(age.results.length, 2);
        assert.ok(age.results.every((r) => r.title !== 'Notes on WAL checkpoint'));
      });

      test('pages with limit and next_offset', async () => {
        const first = await s.search({ query: 'checkpoint', limit: 2 });
        assert.equal(first.results.length, 2);
        assert.equal(first.meta.has_more, true);
        assert.equal(first.meta.next_offset, 2);
        const second = await s.search({ query: 'checkpoint', limit: 2, offset: 2 });
        assert.equal(second.results.length, 1);
        assert.equal(second.meta.has_more, false);
        assert.equal(second.meta.next_offset, null);
      });

      test('snippets mark the matched words', async () => {
        const { results } = await s.search({ query: 'readers' });
        assert.match(results[0]!.snippet, /\*\*readers\*\*/);
      });
    });

    describe('duplicates, details, update, forget', () => {
      let s: Awaited<ReturnType<typeof setup>>;
      before(async () => {
        s = await setup(kind, 'sess-dup');
      });
      after(() => s.cleanup());

      test('an exact duplicate in the same session merges; another session keeps its own copy', async () => {
        const base = {
          title: 'Use prepared statements',
          narrative: 'Create them once.',
          type: 'pattern' as const,
        };
        const a = await s.record({ ...base, confidence: 0.5, files: ['server/db/open.ts'] });
        const b = await s.record({
          ...base,
          confidence: 0.9,
          impact: 'high',
          files: ['server/memory/store.ts'],
        });
        assert.equal(a.merged, false);
        assert.equal(b.merged, true);
        assert.equal(b.observation.id, a.observation.id);
        assert.equal(b.observation.merged_count, 1);
        assert.equal(b.observation.confidence, 0.9);
        assert.equal(b.observation.impact, 'high');
        assert.deepEqual(b.observation.files, ['server/db/open.ts', 'server/memory/store.ts']);
        const other = await s.record({ ...base, session_id: 'sess-other' });
        assert.equal(other.merged, false);
        assert.notEqual(other.observation.id, a.observation.id);
        const changed = await s.record({ ...base, narrative: 'Create them once per connection.' });
        assert.equal(changed.merged, false);
      });

      test('details counts reads; update edits fields and refuses to create a duplicate', async () => {
        const { observation } = await s.record({ title: 'Biome formats tests', type: 'fact' });
        const d1 = await s.hub.call<{ access_count: number; last_accessed_at: string | null }>(detailsTool, {
          id: observation.id,
        });
        assert.equal(d1.access_count, 1);
        assert.ok(d1.last_accessed_at);
        const u = await s.hub.call<{ confidence: number; title: string }>(observationUpdateTool, {
          id: observation.id,
          confidence: 0.95,
        });
        assert.equal(u.confidence, 0.95);
        assert.equal(u.title, 'Biome formats tests');
        const found = await s.search({ query: 'biome' });
        assert.equal(found.results[0]?.id, observation.id);
        await rejectsWith(
          s.hub.call(observationUpdateTool, {
            id: observation.id,
            title: 'Use prepared statements',
            narrative: 'Create them once.',
            type: 'pattern',
          }),
          'validation',
          /duplicate/,
        );
        await rejectsWith(s.hub.call(detailsTool, { id: 99_999 }), 'not_found', /cos_search/);
      });

      test('forget deletes, leaves an audit row without the text, and is not found the second time', async () => {
        const { observation } = await s.record({
          title: 'Secret-ish note',
          narrative: 'to be forgotten',
          type: 'fact',
        });
        const res = await s.hub.call<{ id: number; audit_id: number }>(forgetTool, {
          id: observation.id,
          reason: 'wrong',
        });
        assert.equal(res.id, observation.id);
        await rejectsWith(s.hub.call(detailsTool, { id: observation.id }), 'not_found');
        await rejectsWith(s.hub.call(forgetTool, { id: observation.id }), 'not_found');
        const log = await s.hub.call<{ entries: Record<string, unknown>[] }>(forgetLogTool, {});
        const entry = log.entries.find((e) => e.observation_id === observation.id);
        assert.ok(entry);
        assert.equal(entry.reason, 'wrong');
        assert.equal(entry.forgotten_by, 'sess-dup');
        assert.equal(entry.session_id, 'sess-dup');
        assert.ok(!JSON.stringify(log).includes('to be forgotten'));
        const gone = await s.search({ query: 'forgotten' });
        assert.equal(gone.results.length, 0);
      });

      test('every write says memory-updated on the hub stream; a read and a refused write do not', async () => {
        const seen: unknown[] = [];
        const off = s.hub.ctx.events.subscribe((e) => {
          if (e.type === 'memory-updated') seen.push(e.data);
        });
        try {
          const note = {
            title: 'Events carry ids',
            narrative: 'not the text of a forgotten one',
            type: 'fact',
          };
          const { observation } = await s.record(note);
          const id = observation.id;
          await s.record(note);
          await s.hub.call(detailsTool, { id });
          await s.hub.call(observationUpdateTool, { id, confidence: 0.4 });
          await rejectsWith(s.hub.call(observationUpdateTool, { id: 99_999, confidence: 0.4 }), 'not_found');
          await s.hub.call(forgetTool, { id });
          const machine = kind.name === 'postgres' ? { machine: 'machine-a' } : {};
          const title = 'Events carry ids';
          assert.deepEqual(seen, [
            { action: 'recorded', id, type: 'fact', title, session_id: 'sess-dup', ...machine },
            { action: 'merged', id, type: 'fact', title, session_id: 'sess-dup', ...machine },
            { action: 'updated', id, type: 'fact', title, session_id: 'sess-dup', ...machine },
            { action: 'forgotten', id, type: 'fact', session_id: 'sess-dup', ...machine },
          ]);
        } finally {
          off();
        }
      });
    });

    describe('timeline', () => {
      test('groups recent entries by UTC day, newest first, with a cursor for older ones', async () => {
        const s = await setup(kind, 'sess-tl');
        try {
          for (let d = 0; d < 4; d++) {
            for (let i = 0; i < 3; i++) {
              s.setClock(NOW - d * DAY - i * 1000);
              await s.record({ title: `day ${d} note ${i}`, type: 'fact' });
            }
          }
          s.setClock(NOW - 20 * DAY);
          await s.record({ title: 'too old', type: 'fact' });
          s.setClock(NOW);
          type TL = {
            entries: { title: string; day: string }[];
            days: { day: string; count: number }[];
            next_before: string | null;
          };
          const t = await s.hub.call<TL>(timelineTool, { days: 3, limit: 5 });
          assert.deepEqual(t.days, [
            { day: '2026-06-15', count: 3 },
            { day: '2026-06-14', count: 3 },
            { day: '2026-06-13', count: 3 },
          ]);
          assert.deepEqual(
            t.entries.map((e) => e.title),
            ['day 0 note 0', 'day 0 note 1', 'day 0 note 2', 'day 1 note 0', 'day 1 note 1'],
          );
          assert.ok(t.next_before);
          const rest = await s.hub.call<TL>(timelineTool, { days: 3, limit: 5, before: t.next_before });
          assert.deepEqual(
            rest.entries.map((e) => e.title),
            ['day 1 note 2', 'day 2 note 0', 'day 2 note 1', 'day 2 note 2'],
          );
          assert.equal(rest.next_before, null);
          await rejectsWith(s.hub.call(timelineTool, { before: 'garbage' }), 'validation');
        } finally {
          await s.cleanup();
        }
      });
    });

    describe('non-Latin and hostile queries', () => {
      let s: Awaited<ReturnType<typeof setup>>;
      const ids: Record<string, number> = {};
      before(async () => {
        s = await setup(kind, 'sess-i18n');
        const add = async (key: string, title: string, narrative: string) => {
          ids[key] = (await s.record({ title, narrative, type: 'fact' })).observation.id;
        };
        await add('zh', '数据库连接池的配置方法', '在高负载下增加连接池大小。东京机房负责亚洲请求。');
        await add('ja', 'データベース接続の設定', '接続プールのサイズを調整する。');
        await add('ru', 'Подключение к базе данных', 'Пул соединений ограничен двадцатью соединениями.');
        await add('ar', 'الاتصال بقاعدة البيانات', 'يجب ضبط حجم مجمع الاتصالات.');
        await add('en', 'Connection pool sizing', 'Raise the pool size under load (see NEAR term docs).');
      });
      after(() => s.cleanup());

      const cases: [string, string][] = [
        ['连接池', 'zh'],
        ['东京', 'zh'], // two characters: below the trigram minimum
        ['配置 连接', 'zh'],
        ['接続', 'ja'],
        ['データベース', 'ja'],
        ['базе', 'ru'],
        ['ПОДКЛЮЧЕНИЕ', 'ru'],
        ['соединений', 'ru'],
        ['البيانات', 'ar'],
        ['قاعدة', 'ar'], // written with the clitic ب in the text: only the substring index finds it
        ['pool', 'en'],
      ];
      for (const [query, key] of cases) {
        test(`finds "${query}"`, async () => {
          const { results } = await s.search({ query });
          assert.equal(results[0]?.id, ids[key], JSON.stringify(results.map((r) => r.title)));
        });
      }

      test('twenty long CJK records answer within the agent budget, untrimmed (snippets, not narratives)', async () => {
        for (let i = 0; i < 20; i++) {
          await s.record({
            title: `缓存策略 ${i}`,
            narrative: '缓存失效策略与连接池配置。'.repeat(1500),
            type: 'fact',
          });
        }
        const envelope = await runTool(
          memorySearchTool,
          { query: '缓存', limit: 20 },
          { ctx: s.hub.ctx, applyBudget: true },
        );
        assert.ok(envelope.ok);
        const data = envelope.data as { results: unknown[]; meta: { truncated: boolean } };
        assert.equal(data.results.length, 20);
        assert.equal(data.meta.truncated, false);
        assert.ok(budgetSize(JSON.stringify(envelope)) <= TOKEN_BUDGET_CHARS);
      });

      test('FTS syntax in a query is searched as text and never crashes', async () => {
        for (const q of [
          '"pool',
          'pool"',
          'NEAR(pool size)',
          'pool*',
          '-pool',
          'title:pool',
          '(pool OR',
          'pool AND',
          '^pool',
          'pool + size',
          "pool' OR 1=1 --",
          '{title}: pool',
        ]) {
          const { results } = await s.search({ query: q });
          assert.equal(results[0]?.id, ids.en, q);
        }
      });

      test('a query with nothing searchable answers validation', async () => {
        for (const q of ['*', '""', '()', '-', ':', '* - ( ) : "', '   ', '\u0000', '\ud800']) {
          await rejectsWith(s.search({ query: q }), 'validation', /searchable/);
        }
      });

      test('any string either searches or answers validation (property)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.string({ minLength: 1, maxLength: 60, unit: 'binary' }), async (q) => {
            try {
              await s.search({ query: q });
            } catch (err) {
              assert.ok(
                err instanceof ToolError && err.category === 'validation',
                `${JSON.stringify(q)}: ${String(err)}`,
              );
            }
          }),
          { numRuns: 1000 },
        );
      });
    });
  });
}
