import { Type } from '@sinclair/typebox';
import '../formats.ts';
import { defineTool } from '../define.ts';

export const DocHeaderSchema = Type.Object({
  path: Type.String(),
  title: Type.Union([Type.String(), Type.Null()], {
    description: 'First heading (or first line of a text file)',
  }),
  doc_type: Type.String(),
  format: Type.String({ description: 'markdown, rst or text' }),
  front_matter: Type.Record(Type.String(), Type.Unknown()),
  front_matter_error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the front matter was ignored, when it is not a YAML mapping',
  }),
  chunk_count: Type.Integer(),
  indexed_at: Type.String({ format: 'date-time' }),
});

export const DocHeaderInputSchema = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 500,
    }),
  },
  { additionalProperties: false },
);

export const docHeaderTool = defineTool({
  name: 'cos_doc_header',
  title: "A document's front matter and title",
  description:
    "A document's front matter and first heading, without its body: what a doc is before reading it.",
  module: 'docs',
  layer: 'docs',
  input: DocHeaderInputSchema,
  output: DocHeaderSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/docs/header' },
  handler: (ctx, input) => ctx.services.docs.header(input.path),
});
