// TypeBox input schemas as the JSON Schema tools/list carries. Every session of every agent pays for these
// bytes before its first call (and some clients show them all to the model), so they are written as
// tightly as JSON Schema allows:
// - unions of literals become one `enum`, `X or null` becomes `type: [X, "null"]`, `const` drops its
//   redundant `type`, nested unions are flattened;
// - a subschema repeated within one tool's schema is written once under `$defs` and referenced;
// - bounds a caller gains nothing from knowing ahead (string and list lengths, patterns, refusing
//   unknown keys) are left to the hub, which enforces them and says which field it refused and why;
//   ranges (minimum, maximum), enums, defaults and descriptions stay;
// - nested `$id`s (which let OpenAPI name components) go: MCP clients compile each tool's schemas on
//   their own, and a validator that caches by `$id` refuses the same `$id` twice.
import type { TSchema } from '@sinclair/typebox';

type Json = Record<string, unknown>;

/** What the listing leaves to the hub's own validation (see the top of this file). */
const ENFORCED_BY_THE_HUB = new Set(['$id', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern']);
/** Annotations: they never change what a schema accepts. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment']);
/** Keywords that apply to every type; any other keyword constrains only values of its own type. */
const TYPE_INDEPENDENT = ['enum', 'const', 'anyOf', 'allOf', 'oneOf', 'not', 'if', '$ref'];
/** Keywords whose values are data (or names), never schemas. */
const NOT_SCHEMAS = new Set(['enum', 'const', 'required', 'default', 'examples']);
/** Subschemas shorter than this are cheaper written out than referenced. */
const MIN_SHARED_LENGTH = 32;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const onlyKeys = (s: Json, allowed: readonly string[]) => Object.keys(s).every((k) => allowed.includes(k));
const annotationsOf = (s: Json): Json =>
  Object.fromEntries(Object.entries(s).filter(([k]) => ANNOTATIONS.has(k)));
const withoutAnnotations = (s: Json): Json =>
  Object.fromEntries(Object.entries(s).filter(([k]) => !ANNOTATIONS.has(k)));

/** A subschema that only lists values: `{const}`, `{enum}` or `{type: "null"}`. */
function valuesOf(s: Json): unknown[] | undefined {
  const core = withoutAnnotations(s);
  if (onlyKeys(core, ['const']) && 'const' in core) return [core.const];
  if (onlyKeys(core, ['enum']) && Array.isArray(core.enum)) return core.enum;
  if (onlyKeys(core, ['type']) && core.type === 'null') return [null];
  return undefined;
}

/** One anyOf rewritten as the smallest equivalent schema; `outer` keeps the union's own annotations. */
function simplifyUnion(outer: Json, branches: Json[]): Json {
  // A branch that is a bare union (annotations aside) is the same as its branches spliced in.
  const flat: Json[] = [];
  let inherited: Json = {};
  for (const branch of branches) {
    const core = withoutAnnotations(branch);
    if (onlyKeys(core, ['anyOf']) && Array.isArray(core.anyOf)) {
      inherited = { ...annotationsOf(branch), ...inherited };
      flat.push(...(core.anyOf as Json[]));
    } else flat.push(branch);
  }
  const base = { ...inherited, ...outer };
  // Merged into one schema, the branches' own descriptions (the `X` of `X or null`) describe it.
  let merged = base;
  for (const branch of flat) merged = { ...annotationsOf(branch), ...merged };
  const values = flat.map(valuesOf);
  if (values.every((v) => v !== undefined)) return { ...merged, enum: [...new Set(values.flat())] };
  const cores = flat.map(withoutAnnotations);
  if (cores.every((c) => onlyKeys(c, ['type']) && (typeof c.type === 'string' || Array.isArray(c.type)))) {
    return { ...merged, type: [...new Set(cores.flatMap((c) => c.type as string | string[]))] };
  }
  if (flat.length === 2) {
    const nullAt = cores.findIndex((c) => onlyKeys(c, ['type']) && c.type === 'null');
    const other = flat[1 - nullAt];
    if (nullAt >= 0 && other) {
      if (typeof other.type === 'string' && !TYPE_INDEPENDENT.some((k) => k in other)) {
        return { ...annotationsOf(other), ...base, ...other, type: [other.type, 'null'] };
      }
    }
  }
  return { ...base, anyOf: flat };
}

function compactNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactNode);
  if (!isObject(node)) return node;
  let out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (ENFORCED_BY_THE_HUB.has(key) || (key === 'additionalProperties' && value === false)) continue;
    // Keys of `properties` and `patternProperties` are names, not keywords: only their values are schemas.
    if ((key === 'properties' || key === 'patternProperties' || key === '$defs') && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compactNode(v)]));
    } else if (NOT_SCHEMAS.has(key)) {
      out[key] = value;
    } else {
      out[key] = compactNode(value);
    }
  }
  if ('const' in out) delete out.type;
  if (Array.isArray(out.anyOf)) {
    const { anyOf, ...rest } = out;
    out = simplifyUnion(rest, anyOf as Json[]);
  }
  return out;
}

/** Every subschema position (not names, not value lists) as [parent, key, JSON text], depth first. */
function* subschemas(node: Json): Generator<[Json, string, string]> {
  for (const [key, value] of Object.entries(node)) {
    if (NOT_SCHEMAS.has(key)) continue;
    const named = (key === 'properties' || key === 'patternProperties' || key === '$defs') && isObject(value);
    const children: [Json, string, unknown][] = named
      ? Object.entries(value).map(([name, child]) => [value, name, child])
      : Array.isArray(value)
        ? value.map((child, i) => [value as unknown as Json, String(i), child])
        : [[node, key, value]];
    for (const [parent, at, child] of children) {
      if (!isObject(child)) continue;
      yield [parent, at, JSON.stringify(child)];
      yield* subschemas(child);
    }
  }
}

/**
 * Writes each subschema that repeats once under `$defs` and points at it, largest first, while that
 * saves bytes. A `$ref` beside nothing else is read the same in every draft the clients use.
 */
function shareRepeats(root: Json): Json {
  const defs: Json = isObject(root.$defs) ? { ...root.$defs } : {};
  let next = 0;
  for (;;) {
    const counts = new Map<string, number>();
    for (const [, , text] of subschemas(root)) counts.set(text, (counts.get(text) ?? 0) + 1);
    let best: string | undefined;
    let bestSaving = 0;
    for (const [text, count] of counts) {
      if (count < 2 || text.length < MIN_SHARED_LENGTH) continue;
      const name = `d${next}`;
      const ref = JSON.stringify({ $ref: `#/$defs/${name}` }).length;
      const saving = count * (text.length - ref) - (text.length + name.length + 4);
      if (saving > bestSaving) {
        best = text;
        bestSaving = saving;
      }
    }
    if (best === undefined) break;
    const name = `d${next++}`;
    const sites = [...subschemas(root)].filter(([, , text]) => text === best);
    for (const [parent, key] of sites) parent[key] = { $ref: `#/$defs/${name}` };
    defs[name] = JSON.parse(best);
    root.$defs = defs;
  }
  return root;
}

/** The tools/list form of a TypeBox input schema (see the top of this file). */
export function toMcpJsonSchema(schema: TSchema | Json): Json {
  return shareRepeats(compactNode(JSON.parse(JSON.stringify(schema))) as Json);
}
