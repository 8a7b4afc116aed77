// Read side of the graph: prepared statements created once per connection (a WeakMap keeps one set per
// database handle), and the small row shapes the graph tools share. The indexer worker is the only
// writer; the doctor's fix is the one exception and lives in doctor.ts.

import { dbCache } from '../../db/caches.ts';
import type { Db } from '../../db/open.ts';

export interface NodeRow {
  id: number;
  uid: string;
  kind: string;
  label: string;
  qualified_name: string;
  file_path: string | null;
  start_line: number | null;
  end_line: number | null;
  language: string | null;
  signature: string | null;
  metadata: string | null;
  file_id: number | null;
}

export interface EdgeRow {
  id: number;
  source_id: number;
  target_id: number;
  edge_type: string;
  confidence: number;
  extractor: string;
  line: number | null;
  col: number | null;
}

/** An edge with the node at its other end (the neighbour seen from the node asked about). */
export interface NeighbourRow extends EdgeRow {
  /** The other end's id: target_id for outgoing edges, source_id for incoming ones. */
  other: number;
}

/** The edges of one type between a node and one neighbour, as one row (one per distinct neighbour). */
export interface GroupedNeighbourRow {
  edge_type: string;
  other: number;
  /** Edges (reference sites) to or from this neighbour. */
  count: number;
  /** The highest confidence among them. */
  confidence: number;
  /** The first site's line. */
  line: number | null;
  /** Every site's line, as a JSON array (unordered; nulls for sites without one). */
  lines: string;
}

export interface StateRow {
  generation: number;
  last_indexed_at: number | null;
  files_pending: number;
  indexing: number;
}

const NODE_COLS =
  'id, uid, kind, label, qualified_name, file_path, start_line, end_line, language, signature, metadata, file_id';
const EDGE_COLS = 'id, source_id, target_id, edge_type, confidence, extractor, line, col';

function build(db: Db) {
  const p = (sql: string) => db.prepare(sql);
  return {
    byUid: p(`SELECT ${NODE_COLS} FROM graph_nodes WHERE uid = ?`),
    byId: p(`SELECT ${NODE_COLS} FROM graph_nodes WHERE id = ?`),
    byIds: p(
      `SELECT ${NODE_COLS.split(', ')
        .map((c) => `n.${c}`)
        .join(', ')} FROM json_each(?) j JOIN graph_nodes n ON n.id = j.value ORDER BY j.key`,
    ),
    byLabel: p(`SELECT ${NODE_COLS} FROM graph_nodes WHERE label = ? LIMIT 200`),
    byPathAndName: p(
      `SELECT ${NODE_COLS} FROM graph_nodes WHERE file_path = ? AND (qualified_name = ? OR label = ?) LIMIT 1000`,
    ),
    inFile: p(`SELECT ${NODE_COLS} FROM graph_nodes WHERE file_path = ? ORDER BY start_line, id`),
    fts: p(
      `SELECT n.id AS id, bm25(graph_fts, 10.0, 5.0, 1.0) AS rank FROM graph_fts
       JOIN graph_nodes n ON n.id = graph_fts.rowid WHERE graph_fts MATCH ? ORDER BY rank LIMIT ?`,
    ),
    out: p(`SELECT ${EDGE_COLS}, target_id AS other FROM graph_edges WHERE source_id = ?`),
    in: p(`SELECT ${EDGE_COLS}, source_id AS other FROM graph_edges WHERE target_id = ?`),
    // One row per neighbour and edge type, most sites first: 95 calls of one helper are one neighbour.
    outGrouped: p(
      `SELECT edge_type, target_id AS other, count(*) AS count, max(confidence) AS confidence,
              min(line) AS line, json_group_array(line) AS lines
       FROM graph_edges WHERE source_id = ? GROUP BY edge_type, target_id ORDER BY edge_type, count DESC, other`,
    ),
    inGrouped: p(
      `SELECT edge_type, source_id AS other, count(*) AS count, max(confidence) AS confidence,
              min(line) AS line, json_group_array(line) AS lines
       FROM graph_edges WHERE target_id = ? GROUP BY edge_type, source_id ORDER BY edge_type, count DESC, other`,
    ),
    // The function (or method, or declaration) a nested declaration is written in.
    enclosing: p(
      `SELECT e.source_id AS id, e.line FROM graph_edges e JOIN graph_nodes n ON n.id = e.source_id
       WHERE e.target_id = ? AND e.edge_type = 'contains' AND n.kind IN ('function', 'method', 'constant', 'variable')`,
    ),
    outOfType: p(
      `SELECT ${EDGE_COLS}, target_id AS other FROM graph_edges WHERE source_id = ? AND edge_type = ?`,
    ),
    inOfType: p(
      `SELECT ${EDGE_COLS}, source_id AS other FROM graph_edges WHERE target_id = ? AND edge_type = ?`,
    ),
    inDegree: p("SELECT count(*) FROM graph_edges WHERE target_id = ? AND edge_type != 'contains'").pluck(),
    hasIn: p('SELECT 1 FROM graph_edges WHERE target_id = ? LIMIT 1').pluck(),
    state: p('SELECT generation, last_indexed_at, files_pending, indexing FROM graph_state WHERE id = 1'),
    fileError: p('SELECT error FROM graph_files WHERE path = ?').pluck(),
    counts: p(
      `SELECT (SELECT count(*) FROM graph_nodes) AS nodes, (SELECT count(*) FROM graph_edges) AS edges,
              (SELECT count(*) FROM graph_files) AS files`,
    ),
    markdownFiles: p("SELECT path FROM graph_files WHERE language = 'markdown' ORDER BY path").pluck(),
    deadCandidates: p(
      `SELECT ${NODE_COLS} FROM graph_nodes n WHERE n.file_id IS NOT NULL
         AND n.kind IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR n.file_path = ? OR substr(n.file_path, 1, length(?) + 1) = ? || '/')
         AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.target_id = n.id AND e.edge_type != 'contains')
         -- An interface's method is used by whatever implements it, and by calls the graph cannot type.
         AND NOT (n.kind = 'method' AND EXISTS (
           SELECT 1 FROM graph_edges c JOIN graph_nodes i ON i.id = c.source_id
           WHERE c.target_id = n.id AND c.edge_type = 'contains' AND i.kind = 'interface'))
       ORDER BY n.file_path, n.start_line`,
    ),
    nodesByKind: p('SELECT kind, count(*) AS n FROM graph_nodes GROUP BY kind ORDER BY n DESC'),
    edgesByType: p('SELECT edge_type, count(*) AS n FROM graph_edges GROUP BY edge_type ORDER BY n DESC'),
    filesByLanguage: p(
      'SELECT language, count(*) AS n, sum(size) AS bytes FROM graph_files GROUP BY language ORDER BY n DESC',
    ),
    filesWithErrors: p('SELECT count(*) FROM graph_files WHERE error IS NOT NULL').pluck(),
    parseFailures: p(
      'SELECT path, language, error FROM graph_files WHERE error IS NOT NULL ORDER BY path LIMIT ?',
    ),
    unresolvedCalls: p(
      `SELECT count(*) FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id
       WHERE e.edge_type = 'calls' AND n.uid LIKE 'code:external:(unresolved)::%'`,
    ).pluck(),
    externalCalls: p(
      `SELECT count(*) FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id
       WHERE e.edge_type = 'calls' AND n.kind IN ('external', 'dependency')`,
    ).pluck(),
    topInDegree: p(
      `SELECT target_id AS id, count(*) AS n FROM graph_edges WHERE edge_type != 'contains'
       GROUP BY target_id ORDER BY n DESC LIMIT ?`,
    ),
    // Containment is a tree: one recursive query walks it breadth-first (SQLite's queue is FIFO), so
    // LIMIT keeps the shallowest nodes and a 2,000-node export is one statement, not 2,000. INDEXED BY:
    // left alone, the planner picks the edge_type index and scans every contains edge per step.
    containmentTree: p(
      `WITH RECURSIVE sub(id, parent, depth) AS (
         SELECT @root, NULL, 0
         UNION ALL
         SELECT e.target_id, e.source_id, sub.depth + 1 FROM sub
         JOIN graph_edges e INDEXED BY graph_edges_source ON e.source_id = sub.id AND e.edge_type = 'contains'
         WHERE sub.depth < @hops
       )
       SELECT sub.parent AS parent, n.id, n.uid, n.kind, n.label, n.file_path, n.start_line
       FROM sub JOIN graph_nodes n ON n.id = sub.id LIMIT @limit`,
    ),
    // Edges of some types whose two ends are both in a set of node ids (JSON arrays in, one pass out).
    edgesAmong: p(
      `SELECT e.source_id AS source, e.target_id AS target, e.edge_type AS type, e.confidence AS confidence
       FROM json_each(@ids) j JOIN graph_edges e INDEXED BY graph_edges_source ON e.source_id = j.value
       WHERE e.edge_type IN (SELECT value FROM json_each(@types)) AND +e.target_id IN (SELECT value FROM json_each(@ids))`,
    ),
    // The most connected repository nodes over some edge types (externals are hubs of noise, not structure).
    topByDegree: p(
      `SELECT d.id AS id FROM (
         SELECT id, sum(c) AS degree FROM (
           SELECT source_id AS id, count(*) AS c FROM graph_edges WHERE edge_type IN (SELECT value FROM json_each(@types)) GROUP BY source_id
           UNION ALL
           SELECT target_id, count(*) FROM graph_edges WHERE edge_type IN (SELECT value FROM json_each(@types)) GROUP BY target_id
         ) GROUP BY id
       ) d JOIN graph_nodes n ON n.id = d.id WHERE n.kind != 'external' ORDER BY d.degree DESC, d.id LIMIT @limit`,
    ).pluck(),
    edgesOfType: p('SELECT source_id, target_id FROM graph_edges WHERE edge_type = ?').raw(),
  };
}

export type GraphStatements = ReturnType<typeof build>;

const cache = dbCache<GraphReader>();

/** The graph's read API over one connection; built on first use, then reused by every call. */
export function graphReader(db: Db): GraphReader {
  let r = cache.get(db);
  if (!r) {
    r = new GraphReader(db);
    cache.set(db, r);
  }
  return r;
}

export class GraphReader {
  readonly s: GraphStatements;

  constructor(readonly db: Db) {
    this.s = build(db);
  }

  node(uid: string): NodeRow | undefined {
    return this.s.byUid.get(uid) as NodeRow | undefined;
  }

  nodeById(id: number): NodeRow | undefined {
    return this.s.byId.get(id) as NodeRow | undefined;
  }

  /** Nodes by id in the order given, in one statement (missing ids are skipped). */
  nodesByIds(ids: readonly number[]): NodeRow[] {
    return this.s.byIds.all(JSON.stringify(ids)) as NodeRow[];
  }

  /** Outgoing edges (this node is the source), optionally of some types. */
  out(id: number, types?: ReadonlySet<string>): NeighbourRow[] {
    if (types?.size === 1) return this.s.outOfType.all(id, [...types][0]) as NeighbourRow[];
    const rows = this.s.out.all(id) as NeighbourRow[];
    return types ? rows.filter((r) => types.has(r.edge_type)) : rows;
  }

  /** Incoming edges (this node is the target), optionally of some types. */
  in(id: number, types?: ReadonlySet<string>): NeighbourRow[] {
    if (types?.size === 1) return this.s.inOfType.all(id, [...types][0]) as NeighbourRow[];
    const rows = this.s.in.all(id) as NeighbourRow[];
    return types ? rows.filter((r) => types.has(r.edge_type)) : rows;
  }

  /** Outgoing edges grouped by neighbour and type (see outGrouped), optionally of some types. */
  outGrouped(id: number, types?: ReadonlySet<string>): GroupedNeighbourRow[] {
    const rows = this.s.outGrouped.all(id) as GroupedNeighbourRow[];
    return types ? rows.filter((r) => types.has(r.edge_type)) : rows;
  }

  /** Incoming edges grouped by neighbour and type, optionally of some types. */
  inGrouped(id: number, types?: ReadonlySet<string>): GroupedNeighbourRow[] {
    const rows = this.s.inGrouped.all(id) as GroupedNeighbourRow[];
    return types ? rows.filter((r) => types.has(r.edge_type)) : rows;
  }

  /** The declaration a nested function or class is written in (a function, a method, a constant), if any. */
  enclosing(id: number): { id: number; line: number | null } | undefined {
    return this.s.enclosing.get(id) as { id: number; line: number | null } | undefined;
  }

  inDegree(id: number): number {
    return this.s.inDegree.get(id) as number;
  }

  state(): StateRow {
    return this.s.state.get() as StateRow;
  }
}
