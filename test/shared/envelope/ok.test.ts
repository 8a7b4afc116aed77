import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateTokens, ok, okWithText } from '../../../shared/envelope/index.ts';
import { okWithStats } from '../../../shared/envelope/trim.ts';
import { okChecked, range } from './helpers.ts';

describe('ok(): shape and meta', () => {
  it('wraps an object payload as { ok: true, data } with data.meta last', () => {
    const envelope = ok({ task_id: 'TASK-1', status: 'done' }, { meta: { layer: 'tasks' } });
    assert.deepEqual(envelope, {
      ok: true,
      data: {
        task_id: 'TASK-1',
        status: 'done',
        meta: { layer: 'tasks', tokens_estimated: envelope.data.meta.tokens_estimated, truncated: false },
      },
    });
    assert.deepEqual(Object.keys(envelope.data), ['task_id', 'status', 'meta']);
  });

  it("okWithText: a small answer is serialised once, and its text is the envelope's JSON", () => {
    const data = { rows: range(20).map((i) => ({ id: i, title: `"row" ${i} 文` })), count: 20 };
    const { envelope, text } = okWithText(data, { meta: { layer: 'tasks' } });
    assert.equal(text, JSON.stringify(envelope));
    assert.ok(envelope.data.meta.tokens_estimated > 0);
    const { stats, text: handedBack } = okWithStats(data, { meta: { layer: 'tasks' } });
    assert.equal(stats.serialisations, 1);
    assert.equal(handedBack, text);
  });

  it('okWithText: a trimmed answer leaves the serialising to the caller', () => {
    const data = { results: range(20_000).map((i) => ({ id: i, body: 'x'.repeat(20) })) };
    const { envelope, text } = okWithText(data);
    assert.equal(envelope.data.meta.truncated, true);
    assert.equal(text, undefined);
  });

  it('passes lists, scalars and null through without meta, and never trims them', () => {
    assert.deepEqual(ok([1, 2, 3]), { ok: true, data: [1, 2, 3] });
    assert.deepEqual(ok('text'), { ok: true, data: 'text' });
    assert.deepEqual(ok(42), { ok: true, data: 42 });
    assert.deepEqual(ok(false), { ok: true, data: false });
    assert.deepEqual(ok(null), { ok: true, data: null });
    const big = range(50_000);
    assert.equal(ok(big).data, big);
  });

  it('merges the caller meta over a meta already in the payload', () => {
    const { meta } = okChecked(
      { rows: [1], meta: { layer: 'docs', semantic_scope: 'transitive_depth_2' } },
      { meta: { layer: 'memory', resolved_from: 'direct' } },
    );
    assert.equal(meta.layer, 'memory');
    assert.equal(meta.semantic_scope, 'transitive_depth_2');
    assert.equal(meta.resolved_from, 'direct');
  });

  it('discards spoofed computed keys from both the payload meta and the caller meta', () => {
    const spoof = {
      tokens_estimated: 1,
      truncated: true,
      truncated_results_from: 99,
      truncated_results_to: 1,
      truncated_subgraph: true,
      truncated_string_fields: ['x'],
      truncated_edges_by_type: { calls: { from: 9, to: 1 } },
      envelope_unshrinkable: true,
    };
    const { meta } = okChecked({ results: [1, 2], meta: { ...spoof, layer: 'graph' } }, { meta: spoof });
    assert.deepEqual(meta, { layer: 'graph', tokens_estimated: meta.tokens_estimated, truncated: false });
    assert.notEqual(meta.tokens_estimated, 1);
  });

  it('keeps a caller next_cursor / next_offset, also when the list is cut', () => {
    const { meta } = okChecked(
      { results: range(20_000).map((i) => ({ id: i })) },
      { meta: { layer: 'graph', next_cursor: 'abc', next_offset: 40 } },
    );
    assert.equal(meta.truncated, true);
    assert.equal(meta.next_cursor, 'abc');
    assert.equal(meta.next_offset, 40);
  });

  it('throws when the meta given is not a plain object', () => {
    assert.throws(() => ok({ meta: 'layer=graph' }), TypeError);
    assert.throws(() => ok({ a: 1 }, { meta: [] as unknown as Record<string, unknown> }), TypeError);
  });

  it('treats a null or missing payload meta as empty', () => {
    assert.equal(ok({ a: 1, meta: null }).data.meta.truncated, false);
  });

  it('never mutates the payload, even when it trims', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value !== null && typeof value === 'object') {
        for (const child of Object.values(value)) deepFreeze(child);
        Object.freeze(value);
      }
      return value;
    };
    const data = deepFreeze({
      results: range(10_000).map((i) => ({ id: i, tags: ['a', 'b'] })),
      edges_by_type: { calls: range(10_000) },
      groups: range(50).map((i) => ({ id: i, members: range(500) })),
      content: 'x'.repeat(100_000),
      count: 10_000,
      meta: { layer: 'graph' as const },
    });
    const before = JSON.stringify(data);
    const { meta } = okChecked(data);
    assert.equal(meta.truncated, true);
    assert.equal(JSON.stringify(data), before);
  });
});

describe('ok(): tokens_estimated', () => {
  it('equals the estimate of the final serialised envelope at every size, across digit boundaries', () => {
    for (let n = 0; n < 400; n += 7) {
      for (const unit of ['a', 'ж', '文']) {
        const envelope = ok({ text: unit.repeat(n * 13) });
        assert.equal(envelope.data.meta.tokens_estimated, estimateTokens(JSON.stringify(envelope)));
      }
    }
  });
});

describe('ok(): applyBudget: false', () => {
  it('skips trimming entirely and never sets envelope_unshrinkable', () => {
    const data = { results: range(100_000), content: 'x'.repeat(200_000), junk: range(50_000).map(String) };
    const { data: body, meta } = okChecked(data, { applyBudget: false });
    assert.equal(meta.truncated, false);
    assert.equal(meta.envelope_unshrinkable, undefined);
    assert.equal(body.results, data.results);
    assert.equal(body.content, data.content);
    assert.deepEqual(Object.keys(meta).sort(), ['tokens_estimated', 'truncated']);
  });
});
