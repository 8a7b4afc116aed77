// CallWindow keeps cos_metrics' figures up to date instead of rescanning: its answers must be exactly
// the scan's, whatever happens to tool_calls between two answers (new calls, calls recorded late,
// retention deleting the oldest rows, the window moving on or back).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { openDatabase } from '../../../server/db/open.ts';
import { CallWindow } from '../../../server/observability/call-window.ts';
import { toolMetrics, toolMetricsScan } from '../../../server/observability/queries.ts';

const TOOLS = ['cos_a', 'cos_b', 'cos_c'];
const CATEGORIES = [null, 'validation', 'not_found', 'internal'];

type Step =
  | { kind: 'calls'; n: number; lateBy: number; seed: number }
  | { kind: 'tick'; ms: number }
  | { kind: 'retain-rows'; keep: number }
  | { kind: 'retain-age'; ms: number }
  | { kind: 'back'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('calls' as const),
    n: fc.integer({ min: 1, max: 40 }),
    lateBy: fc.integer({ min: 0, max: 3000 }),
    seed: fc.integer(),
  }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 4000 }) }),
  fc.record({ kind: fc.constant('retain-rows' as const), keep: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ kind: fc.constant('retain-age' as const), ms: fc.integer({ min: 0, max: 8000 }) }),
  fc.record({ kind: fc.constant('back' as const), ms: fc.integer({ min: 1, max: 3000 }) }),
);

describe('CallWindow', () => {
  it('answers exactly what a scan of the window answers, step after step', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1000, max: 10_000 }),
        (steps, windowMs) => {
          const db = openDatabase(':memory:');
          const insert = db.prepare(
            `INSERT INTO tool_calls (at, tool, module, transport, duration_ms, ok, error_category, response_bytes, truncated)
           VALUES (?, ?, 'm', 'mcp', ?, ?, ?, ?, ?)`,
          );
          const window = new CallWindow(db, 100_000);
          let now = 1_000_000;
          try {
            for (const s of steps) {
              if (s.kind === 'calls') {
                let x = s.seed;
                const rnd = (m: number) => {
                  x = (Math.imul(x, 1103515245) + 12345) | 0;
                  return (x >>> 8) % m;
                };
                for (let i = 0; i < s.n; i++) {
                  // Durations repeat often (ties), and some calls started before ones already recorded.
                  const category = CATEGORIES[rnd(4)] ?? null;
                  insert.run(
                    now - (rnd(3) === 0 ? rnd(s.lateBy + 1) : 0),
                    TOOLS[rnd(3)],
                    rnd(50) / 4,
                    category === null ? 1 : 0,
                    category,
                    rnd(5000),
                    rnd(7) === 0 ? 1 : 0,
                  );
                }
              } else if (s.kind === 'tick') now += s.ms;
              else if (s.kind === 'retain-rows') {
                const max =
                  (db.prepare('SELECT max(id) FROM tool_calls').pluck().get() as number | null) ?? 0;
                db.prepare('DELETE FROM tool_calls WHERE id <= ?').run(max - s.keep);
              } else if (s.kind === 'retain-age')
                db.prepare('DELETE FROM tool_calls WHERE at < ?').run(now - s.ms);
              else now -= s.ms;
              const since = now - windowMs;
              assert.deepEqual(window.metrics(since), toolMetricsScan(db, since));
              assert.deepEqual(window.metrics(since, 'cos_b'), toolMetricsScan(db, since, 'cos_b'));
            }
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stays exact while its columns grow and move down over thousands of calls', () => {
    const db = openDatabase(':memory:');
    try {
      const insert = db.prepare(
        `INSERT INTO tool_calls (at, tool, module, transport, duration_ms, ok, error_category, response_bytes, truncated)
         VALUES (?, ?, 'm', 'mcp', ?, ?, ?, ?, ?)`,
      );
      const window = new CallWindow(db, 100_000);
      let now = 0;
      for (let round = 0; round < 60; round++) {
        for (let i = 0; i < 200; i++) {
          const n = round * 200 + i;
          insert.run(
            now + (i % 7),
            TOOLS[n % 3],
            (n * 37) % 101,
            n % 11 ? 1 : 0,
            n % 11 ? null : 'validation',
            n,
            n % 5 ? 0 : 1,
          );
        }
        now += 100;
        // The window holds 1,000-1,400 calls while 12,000 pass through it.
        const since = now - 600;
        assert.deepEqual(window.metrics(since), toolMetricsScan(db, since), `round ${round}`);
      }
    } finally {
      db.close();
    }
  });

  it('lets go of a window busier than its bound, and toolMetrics scans it instead', () => {
    const db = openDatabase(':memory:');
    try {
      const insert = db.prepare(
        `INSERT INTO tool_calls (at, tool, module, transport, duration_ms, ok, response_bytes, truncated)
         VALUES (?, 'cos_a', 'm', 'mcp', ?, 1, 10, 0)`,
      );
      for (let i = 0; i < 50; i++) insert.run(1000 + i, i);
      const window = new CallWindow(db, 40);
      assert.equal(window.metrics(0), null);
      assert.equal(window.size, 0, 'nothing kept');
      assert.deepEqual(new CallWindow(db, 50).metrics(0), toolMetricsScan(db, 0));
      const viaWindows = toolMetrics(db, 0, undefined, 60_000);
      assert.equal(viaWindows[0]?.calls, 50);
      assert.deepEqual(viaWindows, toolMetricsScan(db, 0));
    } finally {
      db.close();
    }
  });
});
