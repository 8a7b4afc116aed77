import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';

export const DocHitSchema = Type.Object({
  path: Type.String({ description: 'Repository-relative source path' }),
  heading_path: Type.Array(Type.String(), { description: 'Headings above the chunk, outermost first' }),
  anchor: Type.Union([Type.String(), Type.Null()], {
    description: 'Slug of the innermost heading: path#anchor',
  }),
  chunk_index: Type.Integer(),
  doc_type: Type.String(),
  snippet: Type.String({ description: 'Text around the first match, matches wrapped in **' }),
  score: Type.Number({
    description: 'bm25 magnitude (headings weigh double); higher is better, 0 for substring-only hits',
  }),
});

export const DocSearchInputSchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
    }),
    path_prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
      }),
    ),
    doc_type: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,40}$',
        description: 'front matter type, or readme, changelog, adr, task, doc',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 0 })),
  },
  { additionalProperties: false },
);

export const docSearchTool = defineTool({
  name: 'cos_doc_search',
  title: 'Search the documentation',
  description:
    "Full-text search over the repository's docs by section: file, heading path, anchor and snippet. Ask the docs before reading code.",
  module: 'docs',
  layer: 'docs',
  input: DocSearchInputSchema,
  output: Type.Object({
    results: Type.Array(DocHitSchema),
    meta: Type.Object({
      match_mode: Type.Union([Type.Literal('words'), Type.Literal('any_words'), Type.Literal('substring')]),
      has_more: Type.Boolean(),
      next_offset: Type.Union([Type.Integer(), Type.Null()]),
      index_state: Type.Union([Type.Literal('idle'), Type.Literal('indexing'), Type.Literal('ready')], {
        description: 'indexing: the first scan is still running and results may be incomplete',
      }),
    }),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/search/docs', tag: 'search' },
  handler: (ctx, input) => {
    const docs = ctx.services.docs;
    const { results, mode, has_more } = docs.search(input);
    const offset = input.offset ?? 0;
    return {
      results,
      meta: {
        match_mode: mode,
        has_more,
        next_offset: has_more ? offset + results.length : null,
        index_state: docs.status().state,
      },
    };
  },
});
