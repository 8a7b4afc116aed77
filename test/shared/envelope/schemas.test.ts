import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  EnvelopeSchema,
  ErrorBodySchema,
  ErrorEnvelopeSchema,
  envelopeSchemaFor,
  fail,
  MetaSchema,
  ok,
  okEnvelopeSchema,
  RESOLVED_FROM,
} from '../../../shared/envelope/index.ts';
import { range } from './helpers.ts';

const Output = Type.Object(
  { results: Type.Array(Type.Object({ id: Type.Integer() })), count: Type.Integer() },
  { additionalProperties: false },
);

describe('TypeBox schemas', () => {
  it('carry the $id that names their OpenAPI component', () => {
    assert.equal(MetaSchema.$id, 'Meta');
    assert.equal(ErrorBodySchema.$id, 'ErrorBody');
    assert.equal(ErrorEnvelopeSchema.$id, 'ErrorEnvelope');
    assert.equal(EnvelopeSchema.$id, 'Envelope');
  });

  it('accept real envelopes: plain, trimmed, string-cut, graph, unshrinkable, list, scalar, error', () => {
    const envelopes = [
      ok({ a: 1 }, { meta: { layer: 'kernel', next_cursor: null } }),
      ok({ results: range(10_000).map((id) => ({ id })), count: 10_000 }, { meta: { layer: 'graph' } }),
      ok({ edges_by_type: { calls: range(20_000) } }),
      ok({ processes: range(20).map((i) => ({ i, steps: range(1000) })), x: 1 }),
      ok({ content: 'x'.repeat(50_000) }),
      ok(Object.fromEntries(range(5000).map((i) => [`k${i}`, i]))),
      ok([1, 2]),
      ok(null),
      ...(
        [
          'transient',
          'validation',
          'permission',
          'not_found',
          'unavailable',
          'internal',
          'module_disabled',
        ] as const
      ).map((c) => fail(c, 'm')),
    ];
    for (const envelope of envelopes) {
      assert.ok(Value.Check(EnvelopeSchema, envelope), JSON.stringify(envelope).slice(0, 200));
      if (
        envelope.ok &&
        envelope.data !== null &&
        typeof envelope.data === 'object' &&
        !Array.isArray(envelope.data)
      ) {
        const meta = (envelope.data as { meta: unknown }).meta;
        assert.ok(Value.Check(MetaSchema, meta), JSON.stringify([...Value.Errors(MetaSchema, meta)]));
      }
    }
  });

  it('reject malformed envelopes', () => {
    assert.equal(
      Value.Check(EnvelopeSchema, { ok: false, error: { category: 'nope', retryable: false, message: '' } }),
      false,
    );
    assert.equal(
      Value.Check(EnvelopeSchema, { ok: false, error: { category: 'internal', message: '' } }),
      false,
    );
    assert.equal(Value.Check(ErrorEnvelopeSchema, { ...fail('internal', 'x'), data: {} }), false);
    assert.equal(Value.Check(EnvelopeSchema, { ok: true }), false);
    assert.equal(Value.Check(MetaSchema, { truncated: false }), false);
    assert.equal(Value.Check(MetaSchema, { tokens_estimated: 3, truncated: false, layer: 'nowhere' }), false);
  });

  it('resolved_from: the three values of the contract and exact_unique, nothing else', () => {
    assert.deepEqual([...RESOLVED_FROM].sort(), ['direct', 'exact_unique', 'fuzzy_fts5', 'path_prefix']);
    for (const from of RESOLVED_FROM) {
      const meta = ok({ a: 1 }, { meta: { layer: 'graph', resolved_from: from } }).data.meta;
      assert.equal(meta.resolved_from, from);
      assert.ok(Value.Check(MetaSchema, meta), from);
    }
    const wrong = ok({ a: 1 }, { meta: { resolved_from: 'exact' } }).data.meta;
    assert.equal(Value.Check(MetaSchema, wrong), false);
  });

  it('accept the HTTP-only categories in ErrorBody, which fail() refuses', () => {
    assert.ok(
      Value.Check(ErrorBodySchema, { category: 'unauthorized', retryable: false, message: 'token required' }),
    );
    assert.equal(
      Value.Check(ErrorBodySchema, { category: 'rate_limited', retryable: true, message: 'slow down' }),
      false,
      'a refused burst is transient (429), not a category of its own',
    );
  });

  it('envelopeSchemaFor(output) accepts the tool ok envelope and every error envelope, and nothing else', () => {
    const schema = envelopeSchemaFor(Output);
    const good = ok(
      { results: range(5000).map((id) => ({ id })), count: 5000 },
      { meta: { layer: 'graph' } },
    );
    assert.equal(good.data.meta.truncated, true);
    assert.ok(Value.Check(schema, good));
    assert.ok(Value.Check(schema, fail('not_found', 'no such symbol')));
    assert.equal(Value.Check(schema, ok({ results: 'nope', count: 1 })), false);
    assert.equal(Value.Check(okEnvelopeSchema(Output), fail('internal', 'x')), false);
  });

  it('embed no $id, so one validator can compile every tool schema', () => {
    const text = JSON.stringify(envelopeSchemaFor(Output));
    assert.equal(text.includes('$id'), false);
    assert.equal(MetaSchema.$id, 'Meta', 'the named schema itself is untouched');
  });

  it('okEnvelopeSchema passes list and scalar data schemas through without meta', () => {
    const schema = okEnvelopeSchema(Type.Array(Type.Integer()));
    assert.ok(Value.Check(schema, ok([1, 2, 3])));
    assert.ok(Value.Check(okEnvelopeSchema(Type.Null()), ok(null)));
  });
});
