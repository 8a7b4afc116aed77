// Recorded calls on their way to the writer thread (call-writer.ts), encoded so that recording a call
// allocates nothing on the thread that answers it: a row is seven numbers in a Float64Array, and the
// strings that repeat on every row (tool, module, transport, MCP session, client name and version) are
// sent once per "origin", a (tool, caller) pair, and referred to by its number. The batch's buffer is
// transferred, not copied. Only rare strings (an agent session, an error category) travel per row.
import type { CalledTool, CallerInfo } from '../caller.ts';

/** Numbers per row, in this order. */
export const FIELDS = 7;
export const AT = 0;
export const ORIGIN = 1;
export const DURATION_MS = 2;
/** -1 for a success, else the index in `texts` of the error category. */
export const OUTCOME = 3;
export const RESPONSE_BYTES = 4;
/** 1 when the answer was trimmed to the budget. */
export const TRUNCATED = 5;
/** -1, or the index in `texts` of the agent session. */
export const AGENT = 6;

/** [id, tool, module, transport, mcp_session, client_name, client_version] */
export type OriginRow = [number, string, string, string, string | null, string | null, string | null];

export interface CallBatchMessage {
  rows: Float64Array;
  count: number;
  texts: string[];
  /** Origins first used since the last batch. */
  origins: OriginRow[];
  /** The writer forgets every origin it knows before reading this batch's (see Origins.MAX). */
  resetOrigins: boolean;
}

export class CallBatch {
  rows: Float64Array;
  count = 0;
  texts: string[] = [];

  constructor(readonly capacity: number) {
    this.rows = new Float64Array(capacity * FIELDS);
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  push(
    at: number,
    origin: number,
    durationMs: number,
    errorCategory: string | null,
    bytes: number,
    truncated: boolean,
    agentSession: string | null,
  ): void {
    const rows = this.rows;
    const base = this.count * FIELDS;
    rows[base + AT] = at;
    rows[base + ORIGIN] = origin;
    rows[base + DURATION_MS] = durationMs;
    rows[base + OUTCOME] = errorCategory === null ? -1 : this.texts.push(errorCategory) - 1;
    rows[base + RESPONSE_BYTES] = bytes;
    rows[base + TRUNCATED] = truncated ? 1 : 0;
    rows[base + AGENT] = agentSession === null ? -1 : this.texts.push(agentSession) - 1;
    this.count++;
  }

  /** Hands the rows over and starts an empty batch. */
  take(): { rows: Float64Array; count: number; texts: string[] } {
    const taken = { rows: this.rows, count: this.count, texts: this.texts };
    this.rows = new Float64Array(this.capacity * FIELDS);
    this.count = 0;
    this.texts = [];
    return taken;
  }
}

/** Numbers for (tool, caller) pairs. A session's caller object is reused, so most lookups are two map hits. */
export class Origins {
  /**
   * Past this many, every origin is forgotten and numbering goes on (so old and new never collide): a
   * hub that runs for weeks meets a new session every few minutes, and each would otherwise stay.
   */
  static readonly MAX = 20_000;
  private byCaller = new WeakMap<CallerInfo, Map<string, number>>();
  private byKey = new Map<string, number>();
  private next = 1;
  private fresh: OriginRow[] = [];
  private reset = false;

  /**
   * @param beforeReset sends the rows recorded so far: they name origins of the generation about to be
   *   forgotten, so they must reach the writer before a batch that tells it to forget.
   */
  constructor(private readonly beforeReset: () => void) {}

  idOf(tool: CalledTool, caller: CallerInfo): number {
    let tools = this.byCaller.get(caller);
    if (!tools) {
      tools = new Map();
      this.byCaller.set(caller, tools);
    }
    const id = tools.get(tool.name);
    if (id !== undefined) return id;
    const made = this.lookUp(tool, caller);
    tools.set(tool.name, made);
    return made;
  }

  /** REST makes a caller per request: those meet here, by value. */
  private lookUp(tool: CalledTool, caller: CallerInfo): number {
    const session = caller.mcpSessionId ?? null;
    const name = caller.clientName ?? null;
    const version = caller.clientVersion ?? null;
    const key = JSON.stringify([tool.name, tool.module, caller.transport, session, name, version]);
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    if (this.byKey.size >= Origins.MAX) {
      this.beforeReset();
      this.byKey = new Map();
      this.byCaller = new WeakMap();
      this.fresh = [];
      this.reset = true;
    }
    const id = this.next++;
    this.byKey.set(key, id);
    this.fresh.push([id, tool.name, tool.module, caller.transport, session, name, version]);
    return id;
  }

  /** The origins made since the last call, and whether the ones before them were forgotten. */
  takeFresh(): { origins: OriginRow[]; resetOrigins: boolean } {
    const taken = { origins: this.fresh, resetOrigins: this.reset };
    this.fresh = [];
    this.reset = false;
    return taken;
  }
}
