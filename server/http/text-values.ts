// Path and query parameters arrive as text; a tool's schema wants integers, numbers and booleans. Only
// the text that is exactly such a value is converted: "6" is 6, but "6.7", "1e3", "0x5", "+5", " 5" and
// "05" stay text, so the tool's validation refuses them (`validation`) instead of acting on a number the
// caller never wrote. TypeBox's Value.Convert, used before, read "6.7" as 6 and "0x5" as 5.
import type { TObject } from '@sinclair/typebox';

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

interface Schema {
  type?: string | string[];
  anyOf?: Schema[];
  items?: Schema;
  const?: unknown;
}

const has = (schema: Schema, type: string): boolean =>
  Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type;

/** `text` as the value `schema` asks for, when it is exactly that value written out; otherwise unchanged. */
export function fromText(schema: Schema, text: unknown): unknown {
  if (Array.isArray(text)) {
    return has(schema, 'array') && schema.items ? text.map((item) => fromText(schema.items!, item)) : text;
  }
  if (typeof text !== 'string') return text;
  // A query key given once arrives as one string; the schema's list holds it as its only item.
  if (has(schema, 'array')) return schema.items ? [fromText(schema.items, text)] : [text];
  if (schema.anyOf) {
    for (const member of schema.anyOf) {
      const value = fromText(member, text);
      if (value !== text || (member.const === undefined ? has(member, 'string') : member.const === text))
        return value;
    }
    return text;
  }
  if (schema.const !== undefined) return String(schema.const) === text ? schema.const : text;
  if (has(schema, 'integer'))
    return INTEGER.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
  if (has(schema, 'number')) return DECIMAL.test(text) ? Number(text) : text;
  if (has(schema, 'boolean')) return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/** Each parameter of `values` converted by its property's schema; unknown keys pass as they are. */
export function paramsFromText(schema: TObject, values: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = schema.properties as Record<string, Schema>;
  for (const [key, value] of Object.entries(values)) {
    const property = Object.hasOwn(props, key) ? props[key] : undefined;
    out[key] = property ? fromText(property, value) : value;
  }
  return out;
}
