// Property tests: at least 1,000 generated payloads per property. Budgets are drawn small as well as at
// TOKEN_BUDGET_CHARS, so small payloads reach every rung of the ladder quickly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  budgetSize,
  type Meta,
  SCALAR_TRIM_FLOOR_CHARS,
  TOKEN_BUDGET_CHARS,
  TRIMMABLE_LIST_KEYS,
  TRUNCATION_SUFFIX,
} from '../../../shared/envelope/index.ts';
import { joinPath, okWithStats } from '../../../shared/envelope/trim.ts';
import { isTrimOf, type Json, okChecked, withoutMeta } from './helpers.ts';

const RUNS = { numRuns: 1000 };

const unit = fc.constantFrom('a', 'b', 'c', ' ', '-', 'é', '文', 'ж', 'ب', '"', '\\', '\n', '\u0001', '😀');
const chunk = fc.array(unit, { minLength: 1, maxLength: 5 }).map((units) => units.join(''));
const shortText = fc.tuple(chunk, fc.nat({ max: 30 })).map(([s, n]) => s.repeat(n + 1).slice(0, 199));
const longText = fc
  .tuple(chunk, fc.integer({ min: 40, max: 1500 }))
  .map(([s, n]) => s.repeat(n).padEnd(200, 'p'));
const text = fc.oneof({ weight: 3, arbitrary: shortText }, { weight: 1, arbitrary: longText });
const scalar = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  text,
);
const record = fc.record(
  {
    id: fc.nat(),
    name: shortText,
    body: text,
    tags: fc.array(shortText, { maxLength: 4 }),
    score: fc.double(),
  },
  { requiredKeys: ['id'] },
);
const item = fc.oneof(scalar, record);
const list = fc.array(item, { maxLength: 60 });
const withMembers = fc.array(
  fc.record({
    id: fc.nat(),
    steps: fc.array(item, { maxLength: 30 }),
    members: fc.array(fc.nat(), { maxLength: 40 }),
  }),
  { maxLength: 12 },
);

const listPayload = fc
  .record(
    {
      results: list,
      references: list,
      steps: fc.array(scalar, { maxLength: 20 }),
      rows: list,
      nodes: list,
      processes: withMembers,
      communities: withMembers,
      edges_by_type: fc.dictionary(fc.constantFrom('calls', 'imports', 'contains', 'a-b', '类型'), list, {
        maxKeys: 4,
      }),
      content: text,
      summary: shortText,
      score: fc.double({ noNaN: true, noDefaultInfinity: true }),
      healthy: fc.boolean(),
      total_count: fc.nat(),
      meta: fc.record({
        layer: fc.constantFrom('graph', 'docs'),
        truncated: fc.boolean(),
        next_cursor: shortText,
      }),
    },
    { requiredKeys: [] },
  )
  .chain((data) => {
    const lists = TRIMMABLE_LIST_KEYS.filter((key) => Array.isArray((data as Json)[key]));
    // Often give the payload a count that tracks one of its lists.
    return fc
      .option(fc.constantFrom(...(lists.length > 0 ? lists : ['results' as const])), { nil: undefined })
      .map((tracked): Json => {
        const tracking = tracked === undefined ? undefined : (data as Json)[tracked];
        return Array.isArray(tracking) ? { ...data, count: tracking.length } : { ...data };
      });
  });

// Without lists, so the string safety net (rung 4) runs often too.
const stringPayload = fc.record(
  {
    content: text,
    tags: fc.array(text, { maxLength: 20 }),
    doc: fc.record({
      title: shortText,
      body: text,
      sections: fc.dictionary(shortText, text, { maxKeys: 6 }),
    }),
    'odd key': longText,
    priority: fc.integer(),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Json>;

const payload = fc.oneof({ weight: 3, arbitrary: listPayload }, { weight: 1, arbitrary: stringPayload });

const budget = fc.oneof(fc.integer({ min: 200, max: 12_000 }), fc.constant(TOKEN_BUDGET_CHARS));

interface Case {
  original: Json;
  data: Json;
  meta: Meta;
  size: number;
  budget: number;
}

function run(original: Json, limit: number): Case {
  const { data, meta, size } = okChecked(original, {}, { budget: limit });
  return { original, data, meta, size, budget: limit };
}

/** Paths of strings the result carries cut, in JSON order, found by comparing with the original. */
function cutStrings(result: unknown, original: unknown, path: string, out: string[]): void {
  if (typeof result === 'string' && typeof original === 'string') {
    if (result !== original) out.push(path);
  } else if (Array.isArray(result) && Array.isArray(original)) {
    for (const [i, value] of result.entries()) cutStrings(value, original[i], joinPath(path, i), out);
  } else if (
    result !== null &&
    typeof result === 'object' &&
    original !== null &&
    typeof original === 'object'
  ) {
    for (const [key, value] of Object.entries(result)) {
      if (path === '' && key === 'meta') continue;
      cutStrings(value, (original as Json)[key], joinPath(path, key), out);
    }
  }
}

function scalarsUnchanged(result: unknown, original: unknown): boolean {
  if (typeof original === 'string') {
    return original.length < SCALAR_TRIM_FLOOR_CHARS ? result === original : typeof result === 'string';
  }
  if (Array.isArray(original)) {
    return Array.isArray(result) && result.every((value, i) => scalarsUnchanged(value, original[i]));
  }
  if (original !== null && typeof original === 'object') {
    return (
      result !== null &&
      typeof result === 'object' &&
      Object.keys(original).every((key) => scalarsUnchanged((result as Json)[key], (original as Json)[key]))
    );
  }
  return Object.is(result, original);
}

/** The original with the one number ok() may rewrite (a count tracking a cut list) taken from the result. */
function withResultCount({ original, data }: Case): Json {
  return 'count' in original ? { ...original, count: data.count } : original;
}

describe('envelope properties', () => {
  it('the serialised result fits the budget or carries envelope_unshrinkable', () => {
    fc.assert(
      fc.property(payload, budget, (original, limit) => {
        const { size, meta } = run(original, limit);
        assert.ok(size <= limit || meta.envelope_unshrinkable === true, `size ${size} over ${limit}`);
        if (size <= limit) assert.equal(meta.envelope_unshrinkable, undefined);
      }),
      RUNS,
    );
  });

  it('the text ok() hands back is exactly JSON.stringify of its envelope', () => {
    let handedBack = 0;
    fc.assert(
      fc.property(payload, budget, fc.boolean(), (original, limit, applyBudget) => {
        const { envelope, text, textBytes } = okWithStats(original, { applyBudget }, { budget: limit });
        if (text === undefined) return assert.equal(textBytes, undefined);
        handedBack++;
        assert.equal(text, JSON.stringify(envelope));
        // Its byte length is handed back exactly when the text is plain ASCII.
        const bytes = Buffer.byteLength(text);
        assert.equal(textBytes, bytes === text.length ? bytes : undefined);
      }),
      RUNS,
    );
    assert.ok(handedBack > RUNS.numRuns / 10, `only ${handedBack} answers came with their text`);
  });

  it('truncated is true exactly when the body changed', () => {
    fc.assert(
      fc.property(payload, budget, (original, limit) => {
        const c = run(original, limit);
        const changed = !isDeepEqual(withoutMeta(c.data), withoutMeta(original));
        assert.equal(c.meta.truncated, changed);
      }),
      RUNS,
    );
  });

  it('_from/_to and every other marker agree with what was kept', () => {
    fc.assert(
      fc.property(payload, budget, (original, limit) => {
        const c = run(original, limit);
        const { data, meta } = c;
        for (const key of TRIMMABLE_LIST_KEYS) {
          const before = original[key];
          if (!Array.isArray(before)) continue;
          const after = data[key] as unknown[];
          if (meta[`truncated_${key}_from`] === undefined) {
            assert.equal(after.length, before.length, key);
            assert.equal(meta[`truncated_${key}_to`], undefined);
          } else {
            assert.equal(meta[`truncated_${key}_from`], before.length);
            assert.equal(meta[`truncated_${key}_to`], after.length);
            assert.ok(after.length < before.length);
            if (
              original.count === before.length &&
              TRIMMABLE_LIST_KEYS.find(
                (k) => (original[k] as unknown[] | undefined)?.length === original.count,
              ) === key
            ) {
              assert.equal(data.count, after.length);
            }
          }
        }
        const buckets = (original.edges_by_type ?? {}) as Record<string, unknown[]>;
        const keptBuckets = (data.edges_by_type ?? {}) as Record<string, unknown[]>;
        for (const [bucket, before] of Object.entries(buckets)) {
          const range = meta.truncated_edges_by_type?.[bucket];
          const after = keptBuckets[bucket]!;
          if (range) assert.deepEqual(range, { from: before.length, to: after.length });
          else assert.equal(after.length, before.length);
          assert.ok(range === undefined || after.length < before.length);
        }
        for (const key of ['processes', 'communities']) {
          const outer = data[key] as Json[] | undefined;
          outer?.forEach((element, i) => {
            const originalElement = (original[key] as Json[])[i]!;
            for (const member of ['steps', 'members']) {
              const range = meta.truncated_members?.[`${key}[${i}].${member}`];
              const before = originalElement[member] as unknown[];
              const after = element[member] as unknown[];
              if (range) assert.deepEqual(range, { from: before.length, to: after.length });
              else assert.equal(after.length, before.length);
            }
          });
        }
        const cut: string[] = [];
        cutStrings(data, original, '', cut);
        assert.deepEqual(meta.truncated_string_fields ?? [], cut);
      }),
      RUNS,
    );
  });

  it('numbers, booleans and strings under 200 characters are never changed', () => {
    fc.assert(
      fc.property(payload, budget, (original, limit) => {
        const c = run(original, limit);
        assert.ok(scalarsUnchanged(withoutMeta(c.data), withoutMeta(withResultCount(c))));
        // Kept strings of 200+ characters are whole or a prefix ending in the suffix.
        const cut: string[] = [];
        cutStrings(c.data, original, '', cut);
        for (const path of cut) assert.ok(!path.startsWith('meta'));
      }),
      RUNS,
    );
  });

  it('kept list items are an unchanged prefix of the originals', () => {
    fc.assert(
      fc.property(payload, budget, (original, limit) => {
        const c = run(original, limit);
        const result = withoutMeta(c.data);
        assert.ok(isTrimOf(result, withoutMeta(withResultCount(c))));
        // Where no deeper rung touched a list's items, they are deep-equal to the original prefix.
        if (c.meta.truncated_members === undefined && c.meta.truncated_string_fields === undefined) {
          for (const key of TRIMMABLE_LIST_KEYS) {
            const after = result[key];
            if (Array.isArray(after))
              assert.deepEqual(after, (original[key] as unknown[]).slice(0, after.length));
          }
        }
      }),
      RUNS,
    );
  });
});

const graphPayload = fc
  .tuple(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 200 }), fc.nat({ max: 60 }))
  .chain(([nodeCount, edgeCount, pad]) =>
    fc.record({
      nodes: fc.constant(
        Array.from({ length: nodeCount }, (_, i) => ({ id: `n${i}`, label: 'x'.repeat(pad + (i % 7)) })),
      ),
      edges: fc.array(
        fc
          .record({ source: fc.nat({ max: nodeCount + 2 }), target: fc.nat({ max: nodeCount + 2 }) })
          .map((e) => ({
            source: `n${e.source}`,
            target: `n${e.target}`,
          })),
        { minLength: edgeCount, maxLength: edgeCount },
      ),
      scope: shortText,
    }),
  );

describe('graph tier properties', () => {
  it('keeps the top-K nodes by incident degree and exactly the edges between them', () => {
    fc.assert(
      fc.property(graphPayload, fc.integer({ min: 300, max: 20_000 }), (original, limit) => {
        const { data, meta, size } = run(original, limit);
        assert.ok(size <= limit || meta.envelope_unshrinkable === true);
        const nodes = data.nodes as { id: string }[];
        const edges = data.edges as { source: string; target: string }[];
        if (!meta.truncated_subgraph) {
          assert.equal(nodes, original.nodes);
          assert.equal(edges, original.edges);
          return;
        }
        assert.deepEqual(
          [
            meta.truncated_nodes_from,
            meta.truncated_nodes_to,
            meta.truncated_edges_from,
            meta.truncated_edges_to,
          ],
          [original.nodes.length, nodes.length, original.edges.length, edges.length],
        );
        const kept = new Set(nodes.map((n) => n.id));
        assert.deepEqual(
          nodes,
          original.nodes.filter((n) => kept.has(n.id)),
        );
        assert.deepEqual(
          edges,
          original.edges.filter((e) => kept.has(e.source) && kept.has(e.target)),
        );
        const ids = new Set(original.nodes.map((n) => n.id));
        const degree = new Map<string, number>();
        for (const e of original.edges) {
          if (!ids.has(e.source) || !ids.has(e.target)) continue;
          degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
          degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
        }
        const minKept = Math.min(...nodes.map((n) => degree.get(n.id) ?? 0));
        for (const node of original.nodes) {
          if (!kept.has(node.id)) assert.ok((degree.get(node.id) ?? 0) <= minKept);
        }
      }),
      RUNS,
    );
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

// Keeps the suffix import honest: the safety net's marker is what isTrimOf looks for.
assert.equal(TRUNCATION_SUFFIX.endsWith('[truncated]'), true);
void budgetSize;
