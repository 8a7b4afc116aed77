// Hostile input for every tool: a fast-check arbitrary built from a tool's TypeBox input schema that
// mixes well-formed values (so handlers are reached) with what agents and attackers actually send:
// wrong types, missing and extra fields, huge and empty strings, control characters, lone surrogates,
// text in many scripts, FTS5 syntax and SQL fragments, traversal and absolute paths, NUL bytes, and
// negative, huge and fractional numbers.
import type { TSchema } from '@sinclair/typebox';
import fc from 'fast-check';

const HOSTILE_STRINGS = [
  '',
  ' ',
  '..',
  '../',
  '../../etc/passwd',
  '../outside/secret.txt',
  '/etc/passwd',
  '/tmp/../etc/shadow',
  'C:\\Windows\\system32',
  'docs/../../..',
  'a\u0000b',
  '\u0000',
  'x'.repeat(100_000),
  '\uD800',
  'a\uDC00b',
  '\u202Egnp.exe',
  '"unterminated',
  'NEAR(a b)',
  'a OR b AND NOT c',
  'title:foo',
  '"a" * -b ^c',
  '(((',
  "'; DROP TABLE tasks; --",
  '1 OR 1=1',
  "' UNION SELECT * FROM sqlite_schema --",
  '%_%',
  '\\',
  '*',
  '日本語のテキスト',
  'Привет мир',
  'مرحبا بالعالم',
  'שלום',
  'नमस्ते',
  '🙂🚀',
  'e\u0301',
  '\t\r\n\u0007\u001b[31m',
  'TASK-1',
  'TASK-999999999',
  'code:file:../../x',
  'code:function:a.ts::b',
  'folder:/',
  'null',
  'undefined',
  '__proto__',
  'constructor',
];

const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 0.5, -0.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, Number.MIN_VALUE),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Anything JSON can carry: what a client sends when it gets the type wrong. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hostileNumber,
  hostileString,
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

type Schema = TSchema & {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
};

/**
 * A value for `schema`. `strict` values respect the schema's bounds (so the call reaches the handler
 * with hostile *content*: traversal paths, FTS syntax, SQL, scripts); loose ones ignore them.
 */
export function valueFor(schema: Schema, depth = 0, strict = false): fc.Arbitrary<unknown> {
  if (depth > 4) return strict ? fc.constant(null) : wrongType;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, depth + 1, strict)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (strict && schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      if (strict && schema.format === 'date-time')
        return fc
          .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
          .map((d) => d.toISOString());
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
      const fits = (v: string) => !strict || (v.length >= min && v.length <= max);
      return fc.oneof(
        { weight: 3, arbitrary: hostileString.filter(fits) },
        {
          weight: 2,
          arbitrary: fc.string({
            minLength: Math.min(min, 50),
            maxLength: Math.max(Math.min(min, 50), Math.min(max, 30)),
          }),
        },
      );
    }
    case 'integer': {
      const lo = Math.max(schema.minimum ?? (schema.exclusiveMinimum ?? -1001) + 1, -1e6);
      const hi = Math.min(schema.maximum ?? (schema.exclusiveMaximum ?? 1001) - 1, 1e6);
      const inRange = fc.integer({ min: Math.min(lo, hi), max: Math.max(lo, hi) });
      return strict
        ? inRange
        : fc.oneof({ weight: 3, arbitrary: inRange }, { weight: 1, arbitrary: hostileNumber });
    }
    case 'number': {
      const inRange = fc.double({
        min: schema.minimum ?? -1000,
        max: schema.maximum ?? 1000,
        noNaN: true,
        noDefaultInfinity: true,
      });
      return strict
        ? inRange
        : fc.oneof({ weight: 3, arbitrary: inRange }, { weight: 1, arbitrary: hostileNumber });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? valueFor(schema.items, depth + 1, strict) : wrongType, {
        minLength: strict ? Math.min(schema.minItems ?? 0, 4) : 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return strict ? strictObject(schema, depth + 1) : argumentsFor(schema, depth + 1);
    default:
      return strict ? fc.constant(null) : wrongType;
  }
}

/** Every required property and some optional ones, each within its bounds; no extra fields. */
function strictObject(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).map(([name, s]) =>
    fc.tuple(fc.constant(name), valueFor(s, depth, true), fc.boolean()),
  );
  return fc.tuple(...entries).map((list) => {
    const out: Record<string, unknown> = {};
    for (const [name, value, keep] of list) if (required.has(name) || keep) out[name] = value;
    return out;
  });
}

/**
 * Arguments for a tool: half the time within the schema's bounds (hostile content that reaches the
 * handler), otherwise its own properties each maybe left out or of the wrong type, now and then an
 * unknown extra field, and sometimes not an object at all.
 */
export function argumentsFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const props = schema.properties ?? {};
  const fields = Object.entries(props).map(([name, s]) =>
    fc.tuple(
      fc.constant(name),
      fc.oneof({ weight: 6, arbitrary: valueFor(s, depth) }, { weight: 1, arbitrary: wrongType }),
      fc.integer({ min: 0, max: 9 }),
    ),
  );
  const loose = fc
    .tuple(fc.tuple(...fields), fc.option(fc.tuple(hostileString, wrongType), { freq: 8 }))
    .map(([entries, extra]) => {
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [name, value, roll] of entries) {
        // Required fields are kept 9 times in 10, optional ones half the time.
        if (roll < (required.has(name) ? 9 : 5)) out[name] = value;
      }
      if (extra && extra[0] !== '__proto__') out[extra[0]] = extra[1];
      return out;
    });
  if (depth > 0) return loose;
  return fc.oneof(
    { weight: 12, arbitrary: strictObject(schema, depth + 1) },
    { weight: 11, arbitrary: loose },
    { weight: 1, arbitrary: wrongType },
  );
}
