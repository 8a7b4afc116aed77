// The usage tables (016-usage.sql): the records read from transcripts, and each transcript's reading
// position. Writes of one reading step go in one transaction with the position they reach, so a hub
// stopped mid-read starts again exactly after what it recorded.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';
import type { TokenCounts } from './prices.ts';
import type { UsageEntry } from './transcripts/usage.ts';

export interface SourceRow {
  id: number;
  path: string;
  client: string;
  agent_session: string;
  dev: number;
  ino: number;
  offset: number;
  size: number;
  mtime_ms: number;
  head: string | null;
  state: string | null;
  read_at: number | null;
  records: number;
  error: string | null;
}

export interface SumRow extends TokenCounts {
  g: string | number | null;
  model: string | null;
  records: number;
}

const SUMS = `COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens, COALESCE(SUM(cache_read_tokens), 0) AS cache_read_tokens,
  COUNT(*) AS records`;

/** Group expressions the report asks for (`at` is ms since the epoch, days and weeks in UTC). */
export const GROUPS = {
  model: 'NULL',
  agent: 'agent_session',
  day: "strftime('%Y-%m-%d', at / 1000, 'unixepoch')",
  // The Monday a week starts on.
  week: "date(at / 1000, 'unixepoch', 'weekday 0', '-6 days')",
} as const;
export type GroupExpr = keyof typeof GROUPS;

export class UsageStore {
  private readonly s;
  private readonly prepared = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: Db) {
    this.s = {
      source: db.prepare<[string], SourceRow>('SELECT * FROM usage_sources WHERE path = ?'),
      addSource: db.prepare<[string, string, string], { id: number }>(
        'INSERT INTO usage_sources (path, client, agent_session) VALUES (?, ?, ?) RETURNING id',
      ),
      setPosition: db.prepare(
        `UPDATE usage_sources SET dev = @dev, ino = @ino, offset = @offset, size = @size, mtime_ms = @mtime_ms,
           head = @head, state = @state, read_at = @read_at, records = records + @added, error = @error WHERE id = @id`,
      ),
      setError: db.prepare<[string | null, number, number]>(
        'UPDATE usage_sources SET error = ?, read_at = ? WHERE id = ?',
      ),
      upsert: db.prepare(
        `INSERT INTO usage_records (key, agent_session, client, model, at, input_tokens, output_tokens,
           cache_write_tokens, cache_read_tokens, source_id)
         VALUES (@key, @agent_session, @client, @model, @at, @input_tokens, @output_tokens,
           @cache_write_tokens, @cache_read_tokens, @source_id)
         ON CONFLICT (key) DO UPDATE SET
           input_tokens = max(input_tokens, excluded.input_tokens),
           output_tokens = max(output_tokens, excluded.output_tokens),
           cache_write_tokens = max(cache_write_tokens, excluded.cache_write_tokens),
           cache_read_tokens = max(cache_read_tokens, excluded.cache_read_tokens),
           model = COALESCE(model, excluded.model)
         WHERE excluded.input_tokens > input_tokens OR excluded.output_tokens > output_tokens
           OR excluded.cache_write_tokens > cache_write_tokens OR excluded.cache_read_tokens > cache_read_tokens
           OR (model IS NULL AND excluded.model IS NOT NULL)`,
      ),
      existing: db.prepare<[string], TokenCounts>(
        'SELECT input_tokens, output_tokens, cache_write_tokens, cache_read_tokens FROM usage_records WHERE key = ?',
      ),
      namedBy: db.prepare<[string], string>(
        'SELECT agent_session FROM mcp_sessions WHERE id = ? AND agent_session IS NOT NULL',
      ),
      sources: db.prepare<[], SourceRow>('SELECT * FROM usage_sources ORDER BY read_at DESC LIMIT 200'),
      agentsWithUsage: db.prepare<[], { agent_session: string; client: string }>(
        'SELECT DISTINCT agent_session, client FROM usage_records',
      ),
    };
  }

  source(path: string): SourceRow | undefined {
    return this.s.source.get(path);
  }

  addSource(path: string, client: string, agentSession: string): SourceRow {
    this.s.addSource.get(path, client, agentSession);
    return this.s.source.get(path) as SourceRow;
  }

  setError(id: number, error: string | null, at: number): void {
    this.s.setError.run(error, at, id);
  }

  /**
   * Records a step's entries and the position it reached, in one transaction. Returns the growth each
   * entry added (a repeated entry adds nothing; a later line of a streamed message adds its difference).
   */
  commitStep(
    src: SourceRow,
    entries: readonly UsageEntry[],
    position: Pick<SourceRow, 'dev' | 'ino' | 'offset' | 'size' | 'mtime_ms' | 'head' | 'state' | 'error'>,
    readAt: number,
  ): (UsageEntry & { at: number })[] {
    const added: (UsageEntry & { at: number })[] = [];
    // Reads each record before it writes it: the write lock first (BEGIN IMMEDIATE), so another of
    // hub.db's connections committing in between cannot refuse the step at once with SQLITE_BUSY.
    this.db
      .transaction(() => {
        for (const e of entries) {
          const before = this.s.existing.get(e.key);
          const at = e.at ?? readAt;
          const info = this.s.upsert.run({
            ...e,
            at,
            agent_session: src.agent_session,
            client: src.client,
            source_id: src.id,
          });
          if (info.changes === 0) continue;
          const growth = (k: keyof TokenCounts) => Math.max(0, e[k] - (before ? before[k] : 0));
          added.push({
            ...e,
            at,
            input_tokens: growth('input_tokens'),
            output_tokens: growth('output_tokens'),
            cache_write_tokens: growth('cache_write_tokens'),
            cache_read_tokens: growth('cache_read_tokens'),
          });
        }
        this.s.setPosition.run({ ...position, id: src.id, read_at: readAt, added: added.length });
      })
      .immediate();
    return added;
  }

  /** Token sums by model (and `group`) of the records matching `where` (an SQL condition on usage_records). */
  sums(group: GroupExpr, where: string, params: unknown[]): SumRow[] {
    const sql = `SELECT ${GROUPS[group]} AS g, model, ${SUMS} FROM usage_records WHERE ${where} GROUP BY g, model`;
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      if (this.prepared.size < 200) this.prepared.set(sql, stmt);
    }
    return stmt.all(...params) as SumRow[];
  }

  /** The agent session (a hook session) an MCP session named in its calls, if it is one that did. */
  namedBy(mcpSession: string): string | undefined {
    return this.s.namedBy.pluck().get(mcpSession) as string | undefined;
  }

  sources(): SourceRow[] {
    return this.s.sources.all();
  }

  agentsWithUsage(): { agent_session: string; client: string }[] {
    return this.s.agentsWithUsage.all();
  }
}
