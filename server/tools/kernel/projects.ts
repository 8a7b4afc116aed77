// GET /api/projects: every project this hub serves, with where to reach it and the counts its home-page
// card shows. REST only: an agent works inside one project and has no business listing the others.
import { type Static, Type } from '@sinclair/typebox';
import type { HubServices } from '../context.ts';
import { defineTool } from '../define.ts';
import { hubSummaryTool } from '../observability/hub-summary.ts';

const ProjectSchema = Type.Object({
  slug: Type.String({ description: 'the project in URLs: `/p/<slug>/`' }),
  repo: Type.String({ description: "absolute real path of the project's repository" }),
  default: Type.Boolean({
    description: 'the project `cos serve` started in, also served at `/mcp` and `/api/…`',
  }),
  registered: Type.Boolean({
    description: 'in the registry (`cos project list`); the default project may not be',
  }),
  mcp_url: Type.String(),
  web_url: Type.String({ description: "the project's board in the web app" }),
  api_base: Type.String({ description: 'prefix of its REST routes: `<api_base>/board`, …' }),
  last_used_at: Type.String({
    description:
      "when an agent or a person last called one of its tools (ISO time; the hub's own page polling does not count); when the hub opened it, until then",
  }),
  idle: Type.Boolean({ description: 'unused for at least COS_PROJECT_IDLE_MINUTES' }),
  released_at: Type.Union([Type.String(), Type.Null()], {
    description:
      'when it let go of its caches for being idle (its indexer and writer threads, the caches beside its database), unless it has been used since; its watchers keep running and its next call rebuilds what it needs',
  }),
  released: Type.Array(Type.String(), {
    description:
      'the threads it let go of since released_at (`graph`: its indexer; `board`: its file writer; `call writer`); empty while in use',
  }),
  summary: Type.Union([hubSummaryTool.output, Type.Null()], {
    description:
      "the project's hub summary (as GET /api/hub/summary answers inside it); null when it could not be read",
  }),
  summary_error: Type.Optional(Type.String({ description: 'why summary is null' })),
});

export const projectListTool = defineTool({
  name: 'cos_project_list',
  title: 'Projects',
  description:
    'Every repository this hub serves: its slug, MCP URL, web URL, when it was last used and whether it released its caches for being idle, and a summary (tasks by status, graph freshness, agents present, errors in the last hour). The default project comes first.',
  module: 'kernel',
  layer: 'kernel',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ projects: Type.Array(ProjectSchema) }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/projects', tag: 'projects', operationId: 'listProjects' },
  handler: (ctx) => {
    const directory = (ctx.services as Partial<HubServices>).projects;
    const projects = directory ? directory.list() : [];
    const base = directory?.baseUrl ?? '';
    return {
      projects: projects.map((p) => {
        const prefix = `${base}/p/${p.slug}`;
        let summary = null;
        let summaryError: string | undefined;
        try {
          // Synchronous (it reads counters and a few rows); typed as the tool's handler, which may not be.
          summary = hubSummaryTool.handler(p.hub.context({ transport: 'internal' }), {}) as Static<
            typeof hubSummaryTool.output
          >;
        } catch (err) {
          summaryError = (err as Error).message;
        }
        const idle = directory!.idle.state(p);
        return {
          slug: p.slug,
          repo: p.repo,
          default: p.isDefault,
          registered: p.registered,
          mcp_url: `${prefix}/mcp`,
          web_url: `${prefix}/board`,
          api_base: `${prefix}/api`,
          last_used_at: new Date(idle.lastUsedAt).toISOString(),
          idle: idle.idle,
          released_at: idle.releasedAt === null ? null : new Date(idle.releasedAt).toISOString(),
          released: idle.released,
          summary,
          ...(summaryError === undefined ? {} : { summary_error: summaryError }),
        };
      }),
    };
  },
});
