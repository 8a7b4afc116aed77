// The tools/list form of an input schema must accept exactly what the schema accepts, apart from the bounds
// it leaves to the hub (lengths, patterns, unknown keys). Checked with the validator the SDK client uses,
// on values generated from each catalog schema: valid ones, and ones broken a field at a time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Type } from '@sinclair/typebox';
import { toMcpJsonSchema } from '../../../server/mcp/json-schema.ts';
import { catalog } from '../../../server/tools/catalog.ts';

type Json = Record<string, unknown>;
const validator = new AjvJsonSchemaValidator();
const accepts = (schema: Json) => {
  const check = validator.getValidator(schema);
  return (value: unknown) => check(value).valid;
};

// A seeded generator, so a failure reproduces.
let seed = 7;
const rand = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
/** Strings that fit the patterns the catalog uses (ids, appetites, session ids). */
const PATTERNED = ['12', 'TASK-12', 'task-7', '30m', '1d', 'abc', 'a_b.c-1', 'S-1', 'x'];
const WRONG: unknown[] = [null, 0, 1.5, -3, '', 'x', 'TASK-12', true, [], ['a'], {}, { a: 1 }];

/** A value the schema probably accepts; with `breakIt`, one that probably breaks one part of it. */
function sample(schema: Json, breakIt: boolean, depth = 0): unknown {
  if (breakIt && rand() < 0.25) return pick(WRONG);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return pick(schema.enum);
  if (Array.isArray(schema.anyOf)) return sample(pick(schema.anyOf as Json[]), breakIt, depth + 1);
  const type = Array.isArray(schema.type) ? pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'string': {
      if (typeof schema.pattern === 'string') {
        const pattern = new RegExp(schema.pattern, 'u');
        return pick(PATTERNED.filter((s) => pattern.test(s))) ?? 'x';
      }
      const min = (schema.minLength as number | undefined) ?? 0;
      return 'x'.repeat(min + Math.floor(rand() * 3));
    }
    case 'integer':
      return Math.max(
        Number(schema.minimum ?? 0),
        Math.min(Number(schema.maximum ?? 50), Math.floor(rand() * 50)),
      );
    case 'number':
      return Math.max(Number(schema.minimum ?? 0), Math.min(Number(schema.maximum ?? 1), rand()));
    case 'boolean':
      return rand() < 0.5;
    case 'null':
      return null;
    case 'array': {
      if (depth > 6 || !schema.items) return [];
      const n = Math.floor(rand() * 3);
      return Array.from({ length: n }, () =>
        sample(schema.items as Json, breakIt && rand() < 0.3, depth + 1),
      );
    }
    case 'object': {
      const out: Json = {};
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, child] of Object.entries(props)) {
        if (required.has(name) || rand() < 0.6)
          out[name] = depth > 6 ? null : sample(child, breakIt, depth + 1);
      }
      if (breakIt && rand() < 0.2) out.unexpected_key = 1;
      if (breakIt && required.size > 0 && rand() < 0.2) delete out[pick([...required])];
      return out;
    }
    default:
      return breakIt ? pick(WRONG) : {};
  }
}

const BOUNDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', '$id']);
const withoutBounds = (schema: unknown): Json =>
  JSON.parse(
    JSON.stringify(schema, (key, value) =>
      BOUNDS.has(key) || (key === 'additionalProperties' && value === false) ? undefined : value,
    ),
  );

describe('tools/list schemas', () => {
  it('an input schema accepts exactly what the tool accepts, the bounds the hub enforces aside', () => {
    for (const tool of catalog) {
      const full = withoutBounds(tool.input);
      const original = accepts(full);
      const listed = accepts(toMcpJsonSchema(tool.input));
      let valid = 0;
      for (let i = 0; i < 300; i++) {
        const value = sample(full, i % 2 === 1);
        const expected = original(value);
        if (expected) valid++;
        assert.equal(listed(value), expected, `${tool.name}: ${JSON.stringify(value)}`);
      }
      assert.ok(valid > 0, `${tool.name}: some generated values are valid`);
    }
  });

  it('writes unions of literals as enum, nullable types as type lists, and repeats once under $defs', () => {
    const Status = Type.Union([Type.Literal('open'), Type.Literal('done')], { description: 'state' });
    const Item = Type.Object({ id: Type.String(), tags: Type.Array(Type.String()), score: Type.Number() });
    const schema = Type.Object({
      status: Status,
      previous: Type.Union([Status, Type.Null()]),
      when: Type.Union([Type.String(), Type.Null()]),
      first: Type.Array(Item),
      second: Type.Array(Item),
    });
    const listed = toMcpJsonSchema(schema) as { properties: Record<string, Json>; $defs?: Json };
    assert.deepEqual(listed.properties.status, { description: 'state', enum: ['open', 'done'] });
    assert.deepEqual(listed.properties.previous, { description: 'state', enum: ['open', 'done', null] });
    assert.deepEqual(listed.properties.when, { type: ['string', 'null'] });
    assert.deepEqual(listed.properties.first, listed.properties.second);
    assert.match(String(listed.properties.first?.$ref), /^#\/\$defs\//);
    assert.ok(JSON.stringify(listed).length < JSON.stringify(schema).length * 0.7);
  });

  it('keeps property names that look like keywords, and data under default and enum, as they are', () => {
    const schema = Type.Object({
      enum: Type.Optional(Type.String({ default: 'anyOf' })),
      properties: Type.Optional(Type.Object({ type: Type.String() })),
      $defs: Type.Optional(Type.Integer({ default: 3 })),
    });
    const listed = toMcpJsonSchema(schema) as { properties: Record<string, Json> };
    assert.deepEqual(Object.keys(listed.properties), ['enum', 'properties', '$defs']);
    assert.deepEqual(listed.properties.enum, { default: 'anyOf', type: 'string' });
    const check = accepts(listed);
    assert.ok(check({ enum: 'x', properties: { type: 'y' }, $defs: 2 }));
    assert.equal(check({ properties: { type: 5 } }), false);
  });
});
