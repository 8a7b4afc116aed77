// cos_graph_entrypoints: where the repository is started from, scored: what a package starts (bin,
// main), program mains, handlers of routes, tools, commands and events, and exported declarations
// nothing in the repository uses (API for someone outside). Test files are scored apart, after the rest.
import { Type } from '@sinclair/typebox';
import { budgetSize } from '../../../shared/envelope/index.ts';
import { RepoLines } from '../../graph/queries/source.ts';
import { entryPoints } from '../../graph/queries/surface.ts';
import { isTestPath } from '../../graph/queries/text.ts';
import { defineTool } from '../define.ts';
import { AGENT_PAGE_CHARS, CursorInput } from './api-surface.ts';
import { graphCall, LimitInput, TOOL_READ_ONLY } from './common.ts';
import { cursorFor, cursorOffset } from './export-page.ts';

/** Reasons listed per entry point; the rest are counted. */
const REASONS_SHOWN = 5;
/** Files read to tell whether an unreferenced declaration is exported. */
const FILES_READ = 100;

const EXPORT_HEAD = /^\s*(export\s|module\.exports|exports\.|pub(\([^)]*\))?\s|public\s)/;

export const graphEntrypointsTool = defineTool({
  name: 'cos_graph_entrypoints',
  title: 'Where the code starts',
  description:
    'Scored entry points and why: bin/main, mains, route/tool/command/event handlers, unused exports; tests last.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      limit: LimitInput(500, 50),
      cursor: CursorInput,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    entries: Type.Array(
      Type.Object({
        uid: Type.String(),
        label: Type.String(),
        kind: Type.String(),
        file: Type.Union([Type.String(), Type.Null()]),
        line: Type.Union([Type.Integer(), Type.Null()]),
        score: Type.Integer({ minimum: 0, maximum: 100 }),
        reasons: Type.Array(Type.String()),
        is_test: Type.Boolean(),
      }),
    ),
    total: Type.Integer(),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/entrypoints' },
  handler: (ctx, input) => {
    const call = graphCall(ctx);
    const request = JSON.stringify({ t: 'entrypoints' });
    const generation = call.freshness.generation;
    const offset = cursorOffset(input.cursor, request, generation);
    const limit = input.limit ?? 50;
    const files = new RepoLines(ctx.config.repo);
    const read = new Set<string>();
    let unread = 0;
    const { entries, candidatesCut } = entryPoints(ctx.db, {
      isTest: isTestPath,
      exported: (n) => {
        // Go exports by case; the others say so on the declaration's line.
        if (n.language === 'go') return /^[A-Z]/.test(n.label);
        if (n.language === 'python') return false;
        if (!read.has(n.file_path) && read.size >= FILES_READ) {
          unread++;
          return false;
        }
        read.add(n.file_path);
        const line = files.get(n.file_path)?.[n.start_line - 1] ?? '';
        return EXPORT_HEAD.test(line) || /^\s*(export|pub|public)\s/.test(n.signature ?? '');
      },
    });
    const page = [];
    let left = ctx.caller.transport === 'rest' ? Number.POSITIVE_INFINITY : AGENT_PAGE_CHARS;
    for (const e of entries.slice(offset, offset + limit)) {
      const reasons =
        e.reasons.length > REASONS_SHOWN
          ? [...e.reasons.slice(0, REASONS_SHOWN), `and ${e.reasons.length - REASONS_SHOWN} more`]
          : e.reasons;
      const out = { ...e, reasons };
      const size = budgetSize(JSON.stringify(out)) + 1;
      if (size > left && page.length > 0) break;
      left -= size;
      page.push(out);
    }
    const end = offset + page.length;
    const next = end < entries.length ? cursorFor(end, request, generation) : null;
    const lowerBound = candidatesCut || unread > 0;
    return {
      entries: page,
      total: entries.length,
      next_cursor: next,
      meta: {
        ...call.meta,
        next_cursor: next,
        completeness: lowerBound ? 'lower_bound' : 'exact',
        ...(lowerBound
          ? {
              note: 'more unreferenced declarations exist than were checked for an export: exported API may be missing',
            }
          : {}),
      },
    };
  },
});
