import { Type } from '@sinclair/typebox';
import type { Envelope } from '../../../shared/envelope/index.ts';
import { taskSearchTool } from '../board/search.ts';
import type { ToolContext } from '../context.ts';
import type { AnyTool } from '../define.ts';
import { defineTool } from '../define.ts';
import { docSearchTool } from '../docs/doc-search.ts';
import { graphSearchTool } from '../graph/search.ts';
import { memorySearchTool } from '../memory/search.ts';
import { runTool } from '../run.ts';

const LayerSchema = Type.Union([
  Type.Literal('tasks'),
  Type.Literal('docs'),
  Type.Literal('memory'),
  Type.Literal('graph'),
]);

const HitSchema = Type.Object({
  layer: LayerSchema,
  title: Type.String(),
  snippet: Type.String(),
  score: Type.Number({ description: "the layer's own score; compare within a layer, not across" }),
  open: Type.Object(
    {
      task_id: Type.Optional(Type.String()),
      path: Type.Optional(Type.String()),
      heading: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      observation_id: Type.Optional(Type.Integer()),
      uid: Type.Optional(Type.String()),
    },
    {
      description:
        'how to open it: a task id (cos_task_show), a doc path and heading, an observation id (cos_details), a graph uid (cos_graph_context)',
    },
  ),
});
type Hit = typeof HitSchema.static;
type Layer = Hit['layer'];

interface Source {
  layer: Layer;
  tool: AnyTool;
  map(data: Record<string, unknown>): Hit[];
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const rows = (data: Record<string, unknown>) => (Array.isArray(data.results) ? (data.results as Row[]) : []);

// Each layer keeps its own search (its tokenizer, ranking and filters); this only labels the answers.
const SOURCES: Source[] = [
  {
    layer: 'tasks',
    tool: taskSearchTool,
    map: (d) =>
      rows(d).map((r) => ({
        layer: 'tasks',
        title: `${str(r.id)} ${str(r.title)}`,
        snippet: str(r.snippet),
        score: num(r.score),
        open: { task_id: str(r.id) },
      })),
  },
  {
    layer: 'docs',
    tool: docSearchTool,
    map: (d) =>
      rows(d).map((r) => {
        const headings = Array.isArray(r.heading_path) ? (r.heading_path as unknown[]).map(str) : [];
        return {
          layer: 'docs',
          title: headings.length ? `${str(r.path)} › ${headings.join(' › ')}` : str(r.path),
          snippet: str(r.snippet),
          score: num(r.score),
          open: {
            path: str(r.path),
            heading: r.anchor === null || r.anchor === undefined ? null : str(r.anchor),
          },
        };
      }),
  },
  {
    layer: 'memory',
    tool: memorySearchTool,
    map: (d) =>
      rows(d).map((r) => ({
        layer: 'memory',
        title: str(r.title),
        snippet: str(r.snippet),
        score: num(r.score),
        open: { observation_id: num(r.id) },
      })),
  },
  {
    layer: 'graph',
    tool: graphSearchTool,
    map: (d) =>
      rows(d).map((r) => ({
        layer: 'graph',
        title: `${str(r.kind)} ${str(r.qualified_name) || str(r.label)}`,
        snippet: r.file_path ? `${str(r.file_path)}${r.start_line ? `:${num(r.start_line)}` : ''}` : '',
        score: num(r.score),
        open: { uid: str(r.uid) },
      })),
  },
];

async function searchLayer(
  ctx: ToolContext,
  source: Source,
  query: string,
  limit: number,
): Promise<Envelope> {
  // The layer's own tool, validation and module gate included; the browser budget here, the caller's
  // envelope trims the merged answer.
  return runTool(source.tool, { query, limit }, { applyBudget: false, ctx });
}

export const searchAllTool = defineTool({
  name: 'cos_search_all',
  title: 'Search everything',
  description:
    'One query over tasks, docs, memory and the code graph; each result names its layer and how to open it. Start here when unsure where to look.',
  module: 'kernel',
  layer: 'routing',
  input: Type.Object(
    {
      query: Type.String({ minLength: 1, maxLength: 200 }),
      layers: Type.Optional(
        Type.Array(LayerSchema, {
          minItems: 1,
          maxItems: 4,
          uniqueItems: true,
        }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    results: Type.Array(HitSchema),
    counts: Type.Record(LayerSchema, Type.Integer(), { description: 'results returned per layer' }),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/search' },
  handler: async (ctx, input) => {
    const limit = input.limit ?? 5;
    const wanted = SOURCES.filter((s) => !input.layers || input.layers.includes(s.layer));
    const skipped: { layer: Layer; reason: string }[] = [];
    const counts: Record<Layer, number> = { tasks: 0, docs: 0, memory: 0, graph: 0 };
    const results: Hit[] = [];
    // One layer at a time, with a turn of the event loop between them: each layer's search holds the
    // thread for at most its budget (search/budget.ts), and others are answered in between.
    const answers: Envelope[] = [];
    for (const source of wanted) {
      if (answers.length > 0) await new Promise((resolve) => setImmediate(resolve));
      answers.push(await searchLayer(ctx, source, input.query, limit));
    }
    wanted.forEach((source, i) => {
      const env = answers[i]!;
      if (!env.ok) {
        // A disabled module, a query this layer cannot search, an index not built yet: say so, go on.
        skipped.push({ layer: source.layer, reason: `${env.error.category}: ${env.error.message}` });
        return;
      }
      const hits = source.map(env.data as Record<string, unknown>);
      counts[source.layer] = hits.length;
      results.push(...hits);
    });
    // Interleave by layer rank, so a cut by the agent budget keeps the best of every layer.
    const byLayer = new Map<Layer, Hit[]>();
    for (const h of results) byLayer.set(h.layer, [...(byLayer.get(h.layer) ?? []), h]);
    const interleaved: Hit[] = [];
    for (let rank = 0; interleaved.length < results.length; rank++) {
      for (const list of byLayer.values()) if (list[rank]) interleaved.push(list[rank]!);
    }
    return { results: interleaved, counts, meta: { skipped_layers: skipped } };
  },
});
