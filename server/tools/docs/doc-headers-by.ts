import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { DocHeaderSchema } from './doc-header.ts';

export const DocHeadersByInputSchema = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 100,
    }),
    value: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'equal, case-insensitive (any item of a list)',
      }),
    ),
    path_prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
      }),
    ),
    doc_type: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,40}$',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
  },
  { additionalProperties: false },
);

export const docHeadersByTool = defineTool({
  name: 'cos_doc_headers_by',
  title: 'Documents by front matter',
  description:
    'Documents whose front matter has a key (and optionally a value), e.g. ADRs with status accepted. Headers only.',
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
