import { statSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { isDamagedCode } from '../../db/damage.ts';
import { type Db, hasFts5, schemaVersion } from '../../db/open.ts';
import { idleStatus } from '../../telemetry/telemetry.ts';
import { HUB_VERSION } from '../../version.ts';
import { defineTool } from '../define.ts';
import { ModuleInfoSchema } from './schemas.ts';

export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
      description: '`degraded` when a problem listed in `problems` needs a person',
    }),
    version: Type.String(),
    repository: Type.String({
      description:
        'absolute path of the repository this hub serves (the `cos` command checks it before asking this hub)',
    }),
    uptime_seconds: Type.Number(),
    node_version: Type.String(),
    database: Type.Object({
      schema_version: Type.Integer(),
      size_bytes: Type.Integer({ description: 'database file plus its WAL' }),
      fts5: Type.Boolean({ description: 'whether full-text search is available' }),
      tables: Type.Record(Type.String(), Type.Integer(), { description: 'row count per table' }),
    }),
    modules: Type.Array(ModuleInfoSchema),
    mcp_sessions: Type.Optional(
      Type.Object(
        {
          open: Type.Integer(),
          limit: Type.Integer({
            description: 'COS_MCP_MAX_SESSIONS: a new session beyond it closes the longest idle one',
          }),
          evicted_over_limit: Type.Integer({ description: 'sessions closed for the limit since start' }),
          evicted_idle: Type.Integer({
            description: 'sessions closed since start for being idle (COS_MCP_SESSION_IDLE_MINUTES)',
          }),
        },
        { description: 'MCP sessions open now against their limit' },
      ),
    ),
    team: Type.Optional(
      Type.Object(
        {
          team: Type.String({
            description: "the team key: the clone's normalised origin URL, or COS_TEAM_PROJECT",
          }),
          machine: Type.String({ description: 'this machine in the team (COS_MACHINE)' }),
          database: Type.String({
            description: 'host:port/database of COS_DATABASE_URL (never the password)',
          }),
          state: Type.Union([Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('down')]),
          error: Type.Union([Type.String(), Type.Null()], { description: 'what failed last, while down' }),
          since: Type.String({ format: 'date-time', description: 'when the state last changed' }),
          listening: Type.Boolean({ description: "whether the other hubs' news reaches this hub (LISTEN)" }),
          connections: Type.Object(
            { total: Type.Integer(), idle: Type.Integer(), waiting: Type.Integer(), max: Type.Integer() },
            { description: "this hub's pool (the listener holds one more)" },
          ),
          outbox: Type.Integer({
            description: 'hook events and tool calls waiting to be written to the team',
          }),
          dropped: Type.Integer({ description: 'outbox entries dropped while the database stayed away' }),
          hubs: Type.Array(
            Type.Object({ machine: Type.String(), seen_at: Type.String({ format: 'date-time' }) }),
            {
              description:
                "the team's hubs seen in the last minute, this one included (refreshed every 15 s)",
            },
          ),
        },
        { description: 'the team on PostgreSQL (COS_DATABASE_URL); absent when the hub runs alone' },
      ),
    ),
    telemetry: Type.Object(
      {
        enabled: Type.Boolean({
          description: 'whether spans and metrics are exported (OTEL_EXPORTER_OTLP_ENDPOINT …)',
        }),
        endpoint: Type.Union([Type.String(), Type.Null()], {
          description: 'where traces (or metrics) go, without user name, password or query',
        }),
        protocol: Type.Union([Type.String(), Type.Null()], { description: 'http/protobuf or http/json' }),
        exported: Type.Integer({ description: 'spans the collector accepted since start' }),
        dropped: Type.Integer({
          description: 'spans dropped because the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE)',
        }),
        failed: Type.Integer({
          description: 'spans in exports that failed (collector down, refusing, timed out)',
        }),
        last_error: Type.Union([Type.String(), Type.Null()], {
          description: 'the last export error, or why the configured export is off',
        }),
      },
      { description: 'the OpenTelemetry export (README: OpenTelemetry)' },
    ),
    problems: Type.Array(Type.String()),
  },
  { $id: 'Health' },
);

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Row count per table (not FTS5's own shadow tables). */
function tableCounts(db: Db): Record<string, number> {
  const tables: Record<string, number> = {};
  const names = db
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT GLOB '*_fts_*' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  for (const name of names) {
    tables[name] = db
      .prepare(`SELECT count(*) FROM "${name.replaceAll('"', '""')}"`)
      .pluck()
      .get() as number;
  }
  return tables;
}

export const healthTool = defineTool({
  name: 'cos_health',
  title: 'Hub health',
  description:
    'Hub version, uptime, database size and counts, FTS5 and enabled modules. Call it first when other tools fail unexpectedly.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object({}, { additionalProperties: false }),
  output: HealthSchema,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/health', tag: 'hub' },
  handler: (ctx) => {
    const db = ctx.db;
    let tables: Record<string, number> = {};
    let schema = 0;
    try {
      tables = tableCounts(db);
      schema = schemaVersion(db);
    } catch (err) {
      // A damaged hub.db is this tool's to report (in problems, below), not to fail on.
      const code = (err as { code?: unknown }).code;
      if (!isDamagedCode(code) || !ctx.services.status) throw err;
      ctx.services.status.databaseDamaged(String(code));
    }
    const file = db.name;
    const size = file === ':memory:' ? 0 : fileSize(file) + fileSize(`${file}-wal`);
    const problems: string[] = [];
    if (ctx.modules.loadError) problems.push(ctx.modules.loadError);
    problems.push(...(ctx.services.status?.problems() ?? []));
    const mcpSessions = ctx.services.status?.mcpSessions?.();
    const fts5 = hasFts5(db);
    const t = ctx.services.team?.status();
    const team = t && {
      team: t.team,
      machine: t.machine,
      database: t.database,
      state: t.state,
      error: t.error,
      since: new Date(t.since).toISOString(),
      listening: t.listening,
      connections: t.pool,
      outbox: t.outbox,
      dropped: t.dropped,
      hubs: t.hubs,
    };
    if (!fts5) problems.push('this SQLite build has no FTS5: search tools answer `unavailable`');
    return {
      status: problems.length === 0 ? ('ok' as const) : ('degraded' as const),
      version: HUB_VERSION,
      repository: ctx.config.repo,
      uptime_seconds: Math.round(process.uptime()),
      node_version: process.version,
      database: { schema_version: schema, size_bytes: size, fts5, tables },
      modules: ctx.modules.list(),
      ...(mcpSessions ? { mcp_sessions: mcpSessions } : {}),
      ...(team ? { team } : {}),
      telemetry: ctx.services.status?.telemetry?.status() ?? idleStatus(ctx.config.telemetry),
      problems,
    };
  },
});
