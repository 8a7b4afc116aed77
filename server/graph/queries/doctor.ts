// Graph health checks (cos_graph_doctor) and the repair of the categories that are safe to delete.
// The repair is the one write to the graph outside the indexer worker: afterwards the worker must
// reload its uid → id map (reindex with reload), or it would point new edges at deleted rows.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dbCache } from '../../db/caches.ts';
import type { Db } from '../../db/open.ts';
import { describeFailure, parseFailure } from './parse-failures.ts';
import { NODE_KINDS } from './vocabulary.ts';

export const DOCTOR_CATEGORIES = [
  'dangling_source',
  'dangling_target',
  'duplicate_edges',
  'self_loops',
  'orphaned_inrepo',
  'orphaned_phantom',
  'orphaned_external_unresolved',
  'malformed_uid_path',
  'stale_paths',
  'slowest_extractions',
  'files_with_parse_errors',
] as const;
export type DoctorCategory = (typeof DOCTOR_CATEGORIES)[number];

/** What `fix` deletes; the zero-edge external stubs only among orphaned_external_unresolved. */
export const FIXABLE_CATEGORIES: readonly DoctorCategory[] = [
  'stale_paths',
  'malformed_uid_path',
  'dangling_source',
  'dangling_target',
  'orphaned_phantom',
  'orphaned_external_unresolved',
];
/** Surfaced for visibility; never make the graph unhealthy. */
export const INFORMATIONAL_CATEGORIES: readonly DoctorCategory[] = [
  'slowest_extractions',
  'orphaned_external_unresolved',
  'files_with_parse_errors',
];

/** An extraction this slow is worth a look (a generated or minified file that slipped through). */
export const SLOW_EXTRACTION_MS = 250;

const KNOWN_KINDS = new Set<string>(NODE_KINDS);

export interface Finding {
  category: DoctorCategory;
  count: number;
  /** Rows fix would delete: edge ids for edge categories, node ids for node categories. */
  ids: number[];
  /** stale_paths: file rows whose file is gone (fix deletes them, and their nodes with them). */
  files?: string[];
  sample: string[];
  path_count?: number;
}

interface NodeLite {
  id: number;
  uid: string;
  kind: string;
  file_path: string | null;
  file_id: number | null;
  metadata: string | null;
}

function build(db: Db) {
  const p = (sql: string) => db.prepare(sql);
  return {
    danglingSource: p(
      'SELECT e.id, e.source_id, e.target_id, e.edge_type FROM graph_edges e WHERE NOT EXISTS (SELECT 1 FROM graph_nodes n WHERE n.id = e.source_id)',
    ),
    danglingTarget: p(
      'SELECT e.id, e.source_id, e.target_id, e.edge_type FROM graph_edges e WHERE NOT EXISTS (SELECT 1 FROM graph_nodes n WHERE n.id = e.target_id)',
    ),
    // The graph keeps one edge per call site, so two calls on different lines are not duplicates: only
    // rows that agree on every column, line and column included, are.
    duplicates: p(
      `SELECT group_concat(id) AS ids, count(*) AS n, min(source_id) AS s, min(target_id) AS t, edge_type FROM graph_edges
       GROUP BY source_id, target_id, edge_type, extractor, line, col HAVING n > 1`,
    ),
    // A function calling itself is recursion, not a bug; any other edge to itself is.
    selfLoops: p(
      "SELECT id, source_id, edge_type FROM graph_edges WHERE source_id = target_id AND edge_type != 'calls'",
    ),
    zeroEdge: p(
      `SELECT id, uid, kind, file_path, file_id, metadata FROM graph_nodes n
       WHERE NOT EXISTS (SELECT 1 FROM graph_edges WHERE source_id = n.id)
         AND NOT EXISTS (SELECT 1 FROM graph_edges WHERE target_id = n.id)`,
    ),
    malformed: p(
      `SELECT id, uid, kind, file_path, file_id, metadata FROM graph_nodes
       WHERE instr(uid, char(96)) OR instr(uid, char(9)) OR instr(uid, char(10)) OR instr(uid, char(13))
          OR (kind NOT IN ('external', 'dependency') AND uid LIKE '%../%')
          OR (file_path IS NOT NULL AND (file_path LIKE '%../%' OR file_path LIKE '../%' OR file_path LIKE '/%'
              OR instr(file_path, char(96)) OR instr(file_path, char(9)) OR instr(file_path, char(10))
              OR instr(file_path, char(13)) OR file_path != trim(file_path)))`,
    ),
    paths: p(
      "SELECT DISTINCT file_path FROM graph_nodes WHERE file_path IS NOT NULL AND file_path != ''",
    ).pluck(),
    nodesAtPath: p('SELECT id, uid FROM graph_nodes WHERE file_path = ?'),
    filePaths: p('SELECT path FROM graph_files').pluck(),
    slow: p('SELECT path, duration_ms FROM graph_files WHERE duration_ms >= ? ORDER BY duration_ms DESC'),
    parseErrors: p('SELECT path, language, error FROM graph_files WHERE error IS NOT NULL ORDER BY path'),
    counts: p(
      'SELECT (SELECT count(*) FROM graph_nodes) AS nodes, (SELECT count(*) FROM graph_edges) AS edges, (SELECT count(*) FROM graph_files) AS files',
    ),
    deleteEdge: p('DELETE FROM graph_edges WHERE id = ?'),
    deleteNode: p('DELETE FROM graph_nodes WHERE id = ?'),
    deleteFileRow: p('DELETE FROM graph_files WHERE path = ?'),
  };
}

const cache = dbCache<ReturnType<typeof build>>();
const statements = (db: Db) => {
  let s = cache.get(db);
  if (!s) {
    s = build(db);
    cache.set(db, s);
  }
  return s;
};

function isPhantom(n: NodeLite): boolean {
  if (!KNOWN_KINDS.has(n.kind)) return true;
  if (n.uid.startsWith('task:file:')) return true;
  if (n.metadata) {
    try {
      if ((JSON.parse(n.metadata) as { stub?: unknown }).stub === true) return true;
    } catch {
      return true;
    }
  }
  if (n.kind === 'folder') return n.uid !== 'folder:.';
  // Only files own symbols; an owner-less symbol or file row is left over from something deleted.
  return n.file_id === null && n.kind !== 'external' && n.kind !== 'dependency';
}

const edgeText = (e: { id: number; source_id: number; target_id?: number; edge_type: string }) =>
  `edge #${e.id} ${e.edge_type} ${e.source_id} → ${e.target_id ?? e.source_id}`;

export function diagnose(db: Db, repo: string, sampleSize: number): Finding[] {
  const s = statements(db);
  const out: Finding[] = [];
  const add = (category: DoctorCategory, ids: number[], sample: string[], extra: Partial<Finding> = {}) =>
    out.push({
      category,
      count: extra.count ?? ids.length,
      ids,
      sample: sample.slice(0, sampleSize),
      ...extra,
    });
  type EdgeLite = { id: number; source_id: number; target_id: number; edge_type: string };
  const ds = s.danglingSource.all() as EdgeLite[];
  add(
    'dangling_source',
    ds.map((e) => e.id),
    ds.map(edgeText),
  );
  const dt = s.danglingTarget.all() as EdgeLite[];
  add(
    'dangling_target',
    dt.map((e) => e.id),
    dt.map(edgeText),
  );
  const dup = s.duplicates.all() as { ids: string; n: number; s: number; t: number; edge_type: string }[];
  add(
    'duplicate_edges',
    dup.flatMap((d) => d.ids.split(',').slice(1).map(Number)),
    dup.map((d) => `${d.n}× ${d.edge_type} ${d.s} → ${d.t} (edges ${d.ids})`),
  );
  const loops = s.selfLoops.all() as { id: number; source_id: number; edge_type: string }[];
  add(
    'self_loops',
    loops.map((e) => e.id),
    loops.map(edgeText),
  );

  const malformed = s.malformed.all() as NodeLite[];
  const malformedIds = new Set(malformed.map((n) => n.id));
  add(
    'malformed_uid_path',
    malformed.map((n) => n.id),
    malformed.map((n) => n.uid),
  );

  const inrepo: NodeLite[] = [];
  const phantom: NodeLite[] = [];
  const external: NodeLite[] = [];
  for (const n of s.zeroEdge.all() as NodeLite[]) {
    if (malformedIds.has(n.id)) continue;
    if (isPhantom(n)) phantom.push(n);
    else if (n.kind === 'external' || n.kind === 'dependency') external.push(n);
    else if (n.uid !== 'folder:.') inrepo.push(n);
  }
  add(
    'orphaned_inrepo',
    inrepo.map((n) => n.id),
    inrepo.map((n) => n.uid),
  );
  add(
    'orphaned_phantom',
    phantom.map((n) => n.id),
    phantom.map((n) => n.uid),
  );
  add(
    'orphaned_external_unresolved',
    external.map((n) => n.id),
    external.map((n) => n.uid),
  );

  // Stale: a well-formed path that is no longer on disk (moves and deletes the indexer has not seen).
  const stalePaths: string[] = [];
  const staleIds: number[] = [];
  const staleUids: string[] = [];
  const malformedPaths = new Set(malformed.map((n) => n.file_path));
  const gone = (path: string) => !existsSync(join(repo, path));
  for (const path of s.paths.all() as string[]) {
    if (malformedPaths.has(path) || !gone(path)) continue;
    stalePaths.push(path);
    for (const n of s.nodesAtPath.all(path) as { id: number; uid: string }[]) {
      if (malformedIds.has(n.id)) continue;
      staleIds.push(n.id);
      staleUids.push(n.uid);
    }
  }
  for (const path of s.filePaths.all() as string[])
    if (!stalePaths.includes(path) && gone(path)) stalePaths.push(path);
  add('stale_paths', staleIds, staleUids.length > 0 ? staleUids : stalePaths, {
    count: Math.max(staleIds.length, stalePaths.length),
    files: stalePaths,
    path_count: stalePaths.length,
  });

  const slow = s.slow.all(SLOW_EXTRACTION_MS) as { path: string; duration_ms: number }[];
  add(
    'slowest_extractions',
    [],
    slow.map((f) => `${f.path} (${Math.round(f.duration_ms)} ms)`),
    { count: slow.length },
  );
  const errors = (s.parseErrors.all() as { path: string; language: string; error: string }[]).map(
    parseFailure,
  );
  add(
    'files_with_parse_errors',
    [],
    errors.map((f) => describeFailure(f).slice(0, 200)),
    {
      count: errors.length,
    },
  );
  return out.filter((f) => f.count > 0);
}

/** Deletes the fixable findings in one transaction; returns how many rows each category lost. */
export function repair(db: Db, findings: Finding[]): Partial<Record<DoctorCategory, number>> {
  const s = statements(db);
  const fixed: Partial<Record<DoctorCategory, number>> = {};
  db.transaction(() => {
    for (const f of findings) {
      if (!FIXABLE_CATEGORIES.includes(f.category)) continue;
      let n = 0;
      if (f.category === 'dangling_source' || f.category === 'dangling_target') {
        for (const id of f.ids) n += s.deleteEdge.run(id).changes;
      } else {
        for (const id of f.ids) n += s.deleteNode.run(id).changes;
        for (const path of f.files ?? []) n += s.deleteFileRow.run(path).changes;
      }
      fixed[f.category] = n;
    }
  }).immediate();
  return fixed;
}

/**
 * One doctor pass: the findings, and with `fix` the repair of the fixable ones and the findings after it.
 * cos_graph_doctor and `cos doctor --fix` both run this, so they fix the same things the same way. (A
 * caller with an indexer in memory must have it reload after a repair.)
 */
export function doctorPass(
  db: Db,
  repo: string,
  options: { fix: boolean; sampleSize: number },
): { findings: Finding[]; fixed: Partial<Record<DoctorCategory, number>> | null } {
  const findings = diagnose(db, repo, options.sampleSize);
  if (!options.fix) return { findings, fixed: null };
  const fixed = repair(db, findings);
  return { findings: diagnose(db, repo, options.sampleSize), fixed };
}

export function graphCounts(db: Db): { nodes: number; edges: number; files: number } {
  return statements(db).counts.get() as { nodes: number; edges: number; files: number };
}
