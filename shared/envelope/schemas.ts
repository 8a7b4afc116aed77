// TypeBox mirrors of the envelope. The named schemas carry an $id so OpenAPI components keep their names
// (register them with addSchema and point at them with Type.Ref). The per-tool helpers below embed
// $id-free copies instead: an MCP outputSchema must be self-contained, and a validator that caches by $id
// (ajv) rejects the same $id appearing in every tool's schema.
import { CloneType, KindGuard, type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CATEGORIES, HTTP_ONLY_ERROR_CATEGORIES, LAYERS, RESOLVED_FROM } from './constants.ts';

const TrimRangeSchema = Type.Object(
  {
    from: Type.Integer({ minimum: 0, description: 'length before the cut' }),
    to: Type.Integer({ minimum: 0, description: 'length kept' }),
  },
  { additionalProperties: false },
);

export const MetaSchema = Type.Object(
  {
    layer: Type.Optional(Type.Union(LAYERS.map((layer) => Type.Literal(layer)))),
    tokens_estimated: Type.Integer({
      minimum: 0,
      description: 'Script-aware token estimate of the whole serialised envelope (set by ok() only).',
    }),
    truncated: Type.Boolean({ description: 'True exactly when the budget cut something from the body.' }),
    truncated_edges_by_type: Type.Optional(Type.Record(Type.String(), TrimRangeSchema)),
    truncated_members: Type.Optional(
      Type.Record(Type.String(), TrimRangeSchema, {
        description: 'Nested member lists cut, keyed by path such as `processes[3].steps`.',
      }),
    ),
    truncated_string_fields: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Paths of strings (≥ 200 chars) cut to a prefix ending …[truncated].',
      }),
    ),
    truncated_subgraph: Type.Optional(Type.Boolean()),
    envelope_unshrinkable: Type.Optional(
      Type.Boolean({ description: 'Every trim ran and the envelope is still over budget.' }),
    ),
    next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    next_offset: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    resolved_from: Type.Optional(
      Type.Union(
        RESOLVED_FROM.map((from) => Type.Literal(from)),
        {
          description:
            'How a node argument became a graph node: direct (the uid), path_prefix (a repository path), exact_unique (the one symbol of that exact name), fuzzy_fts5 (full-text fallback: verify it).',
        },
      ),
    ),
  },
  {
    $id: 'Meta',
    additionalProperties: true,
    // truncated_<key>_from/_to for lists and truncated_<key> for other dict-of-list buckets.
    patternProperties: {
      '^truncated_.+_(from|to)$': { type: 'integer', minimum: 0 },
    },
    description: 'Diagnostics set by ok(): layer and caller keys, token estimate, and every trim marker.',
  },
);

export const ErrorBodySchema = Type.Object(
  {
    category: Type.Union(
      [...ERROR_CATEGORIES, ...HTTP_ONLY_ERROR_CATEGORIES].map((category) => Type.Literal(category)),
      {
        description:
          '`unauthorized` (401) comes only from the HTTP edge, never a tool. A refused burst is `transient` with status 429.',
      },
    ),
    retryable: Type.Boolean(),
    message: Type.String(),
  },
  { $id: 'ErrorBody', additionalProperties: false },
);

export const ErrorEnvelopeSchema = Type.Object(
  { ok: Type.Literal(false), error: ErrorBodySchema },
  { $id: 'ErrorEnvelope', additionalProperties: false },
);

export const EnvelopeSchema = Type.Union(
  [
    Type.Object({ ok: Type.Literal(true), data: Type.Unknown() }, { additionalProperties: false }),
    ErrorEnvelopeSchema,
  ],
  { $id: 'Envelope' },
);

function withoutIds<T extends TSchema>(schema: T): T {
  const copy = CloneType(schema) as T & Record<string, unknown>;
  const strip = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) strip(item);
      return;
    }
    const record = node as Record<string, unknown>;
    delete record.$id;
    for (const value of Object.values(record)) strip(value);
  };
  strip(copy);
  return copy;
}

/** The `data` schema ok() produces for a tool output: object payloads gain `meta`, others pass through. */
function okDataSchema(dataSchema: TSchema): TSchema {
  if (KindGuard.IsObject(dataSchema)) {
    const { additionalProperties, description, title } = dataSchema;
    const options = Object.fromEntries(
      Object.entries({ additionalProperties, description, title }).filter(([, value]) => value !== undefined),
    );
    return Type.Object({ ...dataSchema.properties, meta: withoutIds(MetaSchema) }, options);
  }
  if (KindGuard.IsUnion(dataSchema)) {
    return Type.Union(dataSchema.anyOf.map(okDataSchema));
  }
  // Arrays, scalars and null carry no meta; other kinds are taken as the caller wrote them.
  return dataSchema;
}

/** The success envelope for one tool's output schema (self-contained, no nested $id). */
export function okEnvelopeSchema<T extends TSchema>(dataSchema: T) {
  return Type.Object(
    { ok: Type.Literal(true), data: okDataSchema(withoutIds(dataSchema)) },
    { additionalProperties: false },
  );
}

/**
 * ok or error for one tool: the MCP outputSchema must accept both, because the SDK client validates
 * structuredContent even when isError is true.
 */
export function envelopeSchemaFor<T extends TSchema>(dataSchema: T) {
  return Type.Union([okEnvelopeSchema(dataSchema), withoutIds(ErrorEnvelopeSchema)]);
}

export type MetaStatic = Static<typeof MetaSchema>;
export type ErrorBody = Static<typeof ErrorBodySchema>;
