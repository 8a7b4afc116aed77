import { Type } from '@sinclair/typebox';
import { RepoLines } from '../../graph/queries/source.ts';
import type { NodeRow } from '../../graph/queries/store.ts';
import { isTestPath, wordColumns } from '../../graph/queries/text.ts';
import { defineTool } from '../define.ts';
import {
  graphCall,
  LimitInput,
  OffsetInput,
  SymbolKindSchema,
  TOOL_READ_ONLY,
  unresolvedCallsNamed,
} from './common.ts';

const DEFAULT_KINDS = ['function', 'method', 'class', 'interface', 'type', 'enum'];
/** Importing files read for a mention of a candidate's name: a file imported everywhere stays cheap, and says so. */
const IMPORTERS_READ = 200;
/** Entry points and hooks a runtime calls by convention, never through a call the graph can see. */
const CONVENTIONAL =
  /^(main|constructor|__init__|__new__|__call__|__enter__|__exit__|__str__|__repr__|__eq__|__hash__|setUp|tearDown|setup|teardown|init|toString|toJSON|valueOf|render|handler|default|new|drop|fmt|String|Error|ServeHTTP|Init|Main|run|equals|hashCode|compareTo)$|^(test|Test|Benchmark|Example|Fuzz)/;

export const graphDeadCodeTool = defineTool({
  name: 'cos_graph_dead_code',
  title: 'Symbols nothing references',
  description:
    'Functions, classes and types nothing references, with a confidence (low for exports and value uses). Tests and entry points are left out.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      kinds: Type.Optional(
        Type.Array(SymbolKindSchema, {
          maxItems: 15,
          description: `node kinds (default ${DEFAULT_KINDS.join(', ')})`,
        }),
      ),
      path_prefix: Type.Optional(Type.String({ maxLength: 1000 })),
      include_tests: Type.Optional(Type.Boolean({ default: false })),
      min_confidence: Type.Optional(
        Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
          default: 'low',
        }),
      ),
      limit: LimitInput(500, 100),
      offset: OffsetInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    dead: Type.Array(
      Type.Object({
        uid: Type.String(),
        kind: Type.String(),
        label: Type.String(),
        file_path: Type.Union([Type.String(), Type.Null()]),
        start_line: Type.Union([Type.Integer(), Type.Null()]),
        confidence: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
        reasons: Type.Array(Type.String()),
      }),
    ),
    total_count: Type.Integer({ description: 'unreferenced symbols before the confidence filter' }),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/dead-code' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const { r } = call;
    const kinds = input.kinds?.length ? input.kinds : DEFAULT_KINDS;
    const prefix = input.path_prefix
      ? input.path_prefix.replace(/^\.\//, '').replace(/\/+$/, '') || null
      : null;
    const rows = (
      r.s.deadCandidates.all(JSON.stringify(kinds), prefix, prefix, prefix, prefix) as NodeRow[]
    ).filter((n) => (input.include_tests || !isTestPath(n.file_path ?? '')) && !CONVENTIONAL.test(n.label));
    const files = new RepoLines(ctx.config.repo);
    const lines = (path: string) => files.get(path);
    const rank = { low: 0, medium: 1, high: 2 } as const;
    const min = rank[input.min_confidence ?? 'low'];
    const offset = input.offset ?? 0;
    const limit = input.limit ?? 100;
    const dead = [];
    let i = 0;
    let lowerBound = false;
    // Confidence needs file reads, so it is worked out only for the page asked for.
    for (const n of rows) {
      if (dead.length >= limit) break;
      const reasons = ['no calls, imports, type uses or links point at it'];
      let confidence: 'low' | 'medium' | 'high' =
        n.kind === 'type' || n.kind === 'interface' ? 'medium' : 'high';
      const lower = (to: 'low' | 'medium', why: string) => {
        reasons.push(why);
        if (rank[to] < rank[confidence]) confidence = to;
      };
      if (n.kind === 'method') {
        // `const api = { get() {} }`: the object is handed around (to a router, a framework) and its
        // methods are called through whatever receives it, where no edge can follow.
        const up = r.enclosing(n.id);
        const owner = up ? r.nodeById(up.id) : undefined;
        if (owner && (owner.kind === 'constant' || owner.kind === 'variable'))
          lower(
            'low',
            `a method of the object ${owner.label}: called through the object wherever it is passed`,
          );
      }
      const unresolved = unresolvedCallsNamed(r, n.label);
      if (unresolved > 0) {
        lowerBound = true;
        lower('low', `${unresolved} call(s) named ${n.label} could not be resolved and may reach it`);
      }
      if (n.file_path) {
        // The signature starts at the declaration; the export keyword sits before it on the line.
        const head = `${lines(n.file_path)?.[(n.start_line ?? 1) - 1] ?? ''} ${n.signature ?? ''}`;
        if (/^\s*(export|pub(\(crate\))?|public)\s/.test(head))
          lower('medium', 'exported: users outside the repository are invisible');
        const mentions = (lines(n.file_path) ?? []).reduce(
          (k, text, idx) => (idx + 1 === n.start_line ? k : k + wordColumns(text, n.label).length),
          0,
        );
        if (mentions > 0)
          lower('low', `its name appears ${mentions} more time(s) in its file (a value use?)`);
        const file = r.node(`code:file:${n.file_path}`);
        if (file) {
          const importers = r.in(file.id, new Set(['imports']));
          const read = importers.slice(0, IMPORTERS_READ);
          const used = read.some((e) => {
            const p = r.nodeById(e.other)?.file_path;
            return p ? (lines(p) ?? []).some((t) => wordColumns(t, n.label).length > 0) : false;
          });
          if (used) lower('low', 'a file importing it mentions the name');
          else if (importers.length > read.length)
            lower(
              'medium',
              `${importers.length} files import its file; only the first ${read.length} were read for its name`,
            );
        }
      }
      if (rank[confidence] < min) continue;
      if (i++ < offset) continue;
      dead.push({
        uid: n.uid,
        kind: n.kind,
        label: n.label,
        file_path: n.file_path,
        start_line: n.start_line,
        confidence,
        reasons,
      });
    }
    const more = dead.length >= limit && offset + limit < rows.length;
    return {
      dead,
      total_count: rows.length,
      meta: {
        ...call.meta,
        next_offset: more ? offset + limit : null,
        completeness: lowerBound ? 'lower_bound' : 'exact',
      },
    };
  },
});
