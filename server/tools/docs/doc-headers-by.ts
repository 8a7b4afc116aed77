import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { DocHeaderSchema } from './doc-header.ts';

export const DocHeadersByInputSchema = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Front matter key, e.g. status, tags, owner',
    }),
    value: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Match when the value equals this (case-insensitive); for a list, when any item does. Omit to match ' +
          'every document that has the key',
      }),
    ),
    path_prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Only documents under this path, e.g. docs/adr/',
      }),
    ),
    doc_type: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,40}$',
        description: 'Only documents of this type (see cos_doc_search)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Documents per page' }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'next_offset from meta' }),
    ),
  },
  { additionalProperties: false },
);

export const docHeadersByTool = defineTool({
  name: 'cos_doc_headers_by',
  title: 'Documents by front matter',
  description:
    'Documents whose front matter has a key (and optionally a value): e.g. every ADR with status accepted, every ' +
    'doc tagged security. Returns headers only; open one with cos_doc_search or by path.',
  module: 'docs',
  layer: 'docs',
  input: DocHeadersByInputSchema,
  output: Type.Object({
    // `results`: a list key the envelope's budget trimmer knows how to cut (and announce in meta).
    results: Type.Array(DocHeaderSchema),
    meta: Type.Object({ has_more: Type.Boolean(), next_offset: Type.Union([Type.Integer(), Type.Null()]) }),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/docs/headers' },
  handler: (ctx, input) => {
    const { documents, has_more } = ctx.services.docs.headersBy(input);
    const offset = input.offset ?? 0;
    return {
      results: documents,
      meta: { has_more, next_offset: has_more ? offset + documents.length : null },
    };
  },
});
