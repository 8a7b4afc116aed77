// Graph writes, over prepared statements created once per connection. Only the indexer writes; it
// keeps a uid → id map so edges are inserted without a lookup per endpoint.
import type { Db } from '../db/open.ts';
import type { ResolvedEdge, StubNode } from './resolve.ts';
import type { GraphNode, Language } from './types.ts';
import { folderUid, splitWords } from './uid.ts';

/** What resolution writes for a batch of files, in ids and numbers only (it crosses to a helper thread). */
export interface EdgeBatch {
  /** Files whose resolved edges (all but `contains`) are replaced by `edges`. */
  files: number[];
  /** Stub nodes first needed by this batch: [id, uid, kind, label, qualified name]. */
  stubs: [number, string, string, string, string][];
  /** EDGE_FIELDS numbers an edge: source, target, type, confidence, extractor, line, col, file (type and extractor index `names`). */
  edges: Float64Array;
  names: string[];
}

const EDGE_FIELDS = 8;

/** Writes EdgeBatches on one connection, each in one transaction: the indexer's, or a helper's. */
export class EdgeWriter {
  private readonly s;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      deleteResolved: p("DELETE FROM graph_edges WHERE file_id = ? AND edge_type != 'contains'"),
      insertStub: p('INSERT INTO graph_nodes (id, uid, kind, label, qualified_name) VALUES (?, ?, ?, ?, ?)'),
      insertFts: p('INSERT INTO graph_fts (rowid, label, qualified_name, terms) VALUES (?, ?, ?, ?)'),
      insertEdge: p(
        `INSERT INTO graph_edges (source_id, target_id, edge_type, confidence, extractor, line, col, file_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  write(batch: EdgeBatch): void {
    const { edges: e, names } = batch;
    this.db
      .transaction(() => {
        for (const f of batch.files) this.s.deleteResolved.run(f);
        for (const [id, uid, kind, label, qname] of batch.stubs) {
          this.s.insertStub.run(id, uid, kind, label, qname);
          this.s.insertFts.run(id, label, qname, splitWords(`${label} ${qname}`));
        }
        for (let i = 0; i < e.length; i += EDGE_FIELDS)
          this.s.insertEdge.run(
            e[i],
            e[i + 1],
            names[e[i + 2]!],
            e[i + 3],
            names[e[i + 4]!],
            e[i + 5],
            e[i + 6],
            e[i + 7],
          );
      })
      .immediate();
  }
}

/**
 * The pragmas of a connection that writes a pass. A cold pass writes tens of MB. At SQLite's default (a
 * checkpoint every 1,000 pages of WAL) the writer's commits ran a checkpoint, with its two fsyncs and a
 * copy of every page changed since the last one, every 4 MB: about a second of a cold pass of issue
 * 16's mix went there (commit time measured at load 8-10). Every 32 MB instead; the WAL file is cut
 * back to that size once checkpointed, so it does not stay at its high-water mark.
 */
export function forBulkWrites(db: Db): void {
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`journal_size_limit = ${CHECKPOINT_PAGES * pageSize}`);
}

/** WAL pages between two checkpoints of a writing connection (32 MB of 4 KB pages). */
const CHECKPOINT_PAGES = 8000;

export interface FileRow {
  id: number;
  path: string;
  language: string;
  hash: string;
  size: number;
  mtime_ms: number;
  facts: string;
}

export class GraphStore {
  private readonly ids = new Map<string, number>();
  private readonly folders = new Set<string>();
  /**
   * The highest node id this store has seen or given: stubs of an EdgeBatch get ids above it, since
   * another connection writes them. Only the indexer inserts graph nodes, and it inserts none itself
   * while batches are out.
   */
  private maxId = 0;
  private readonly s;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      allFiles: p('SELECT id, path, language, hash, size, mtime_ms, facts FROM graph_files'),
      nodeIds: p('SELECT id, uid, kind FROM graph_nodes'),
      defs: p(
        'SELECT file_id, uid, kind, qualified_name FROM graph_nodes WHERE file_id IS NOT NULL ORDER BY id',
      ),
      importPairs: p(
        `SELECT e.file_id AS importer, n.file_path AS target FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id
         WHERE e.edge_type = 'imports' AND n.kind IN ('file', 'doc_file') AND e.file_id IS NOT NULL`,
      ),
      facts: p('SELECT facts FROM graph_files WHERE id = ?').pluck(),
      touch: p('UPDATE graph_files SET mtime_ms = ? WHERE id = ?'),
      forgetHash: p("UPDATE graph_files SET hash = '', mtime_ms = 0 WHERE id = ?"),
      upsertFile: p(
        `INSERT INTO graph_files (path, language, hash, size, mtime_ms, duration_ms, error, generation, indexed_at, facts)
         VALUES (@path, @language, @hash, @size, @mtimeMs, @durationMs, @error, @generation, @indexedAt, @facts)
         ON CONFLICT(path) DO UPDATE SET language = excluded.language, hash = excluded.hash, size = excluded.size,
           mtime_ms = excluded.mtime_ms, duration_ms = excluded.duration_ms, error = excluded.error,
           generation = excluded.generation, indexed_at = excluded.indexed_at, facts = excluded.facts
         RETURNING id`,
      ).pluck(),
      insertNode: p(
        `INSERT INTO graph_nodes (uid, kind, label, qualified_name, file_path, start_line, end_line, language, signature, metadata, file_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateNode: p(
        `UPDATE graph_nodes SET kind = ?, label = ?, qualified_name = ?, file_path = ?, start_line = ?, end_line = ?,
           language = ?, signature = ?, metadata = ?, file_id = ? WHERE id = ?`,
      ),
      insertFts: p('INSERT INTO graph_fts (rowid, label, qualified_name, terms) VALUES (?, ?, ?, ?)'),
      deleteNode: p('DELETE FROM graph_nodes WHERE id = ?'),
      dependentsOfNode: p(
        'SELECT DISTINCT file_id FROM graph_edges WHERE target_id = ? AND file_id IS NOT NULL AND file_id != ?',
      ).pluck(),
      dependentsOfFile: p(
        `SELECT DISTINCT e.file_id FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id
         WHERE n.file_id = ? AND e.file_id IS NOT NULL AND e.file_id != ?`,
      ).pluck(),
      deleteAllEdges: p('DELETE FROM graph_edges WHERE file_id = ?'),
      insertEdge: p(
        `INSERT INTO graph_edges (source_id, target_id, edge_type, confidence, extractor, line, col, file_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      deleteFile: p('DELETE FROM graph_files WHERE id = ?'),
      collectStubs: p(
        `DELETE FROM graph_nodes WHERE file_id IS NULL AND kind IN ('external', 'dependency')
         AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.target_id = graph_nodes.id) RETURNING uid`,
      ).pluck(),
      generation: p('SELECT generation FROM graph_state WHERE id = 1').pluck(),
      stats: p('SELECT stats FROM graph_state WHERE id = 1').pluck(),
      pending: p('UPDATE graph_state SET files_pending = ?, indexing = ? WHERE id = 1'),
      finish: p(
        'UPDATE graph_state SET generation = ?, last_indexed_at = ?, files_pending = 0, indexing = 0, stats = ? WHERE id = 1',
      ),
      countNodes: p('SELECT count(*) FROM graph_nodes').pluck(),
      countEdges: p('SELECT count(*) FROM graph_edges').pluck(),
      deleteFolder: p("DELETE FROM graph_nodes WHERE uid = ? AND kind = 'folder'"),
    };
  }

  /** run() + lastInsertRowid: a RETURNING clause costs about as much again per row in better-sqlite3. */
  private insertNode(...args: (string | number | null)[]): number {
    const id = Number(this.s.insertNode.run(...args).lastInsertRowid);
    if (id > this.maxId) this.maxId = id;
    return id;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  allFiles(): FileRow[] {
    return this.s.allFiles.all() as FileRow[];
  }

  loadNodeIds(): void {
    this.ids.clear();
    this.folders.clear();
    this.maxId = 0;
    for (const r of this.s.nodeIds.iterate() as Iterable<{ id: number; uid: string; kind: string }>) {
      this.ids.set(r.uid, r.id);
      if (r.id > this.maxId) this.maxId = r.id;
      if (r.kind === 'folder') this.folders.add(r.uid);
    }
  }

  /**
   * One batch of resolution's writes, in ids, for any connection to write (EdgeWriter): the files'
   * resolved edges are replaced by `edges`, and stubs not in the graph yet get ids here. Edges whose
   * endpoints have no node are left out, as insertEdges does.
   */
  edgeBatch(files: { fileId: number; edges: ResolvedEdge[] }[], stubs: Iterable<StubNode>): EdgeBatch {
    const batch: EdgeBatch = { files: [], stubs: [], edges: new Float64Array(0), names: [] };
    const name = new Map<string, number>();
    const nameOf = (n: string) => {
      let k = name.get(n);
      if (k === undefined) {
        k = batch.names.length;
        batch.names.push(n);
        name.set(n, k);
      }
      return k;
    };
    for (const stub of stubs) {
      if (this.ids.has(stub.uid)) continue;
      const id = ++this.maxId;
      this.ids.set(stub.uid, id);
      batch.stubs.push([id, stub.uid, stub.kind, stub.label, stub.qualifiedName]);
    }
    let count = 0;
    for (const f of files) count += f.edges.length;
    const out = new Float64Array(count * EDGE_FIELDS);
    let k = 0;
    for (const { fileId, edges } of files) {
      batch.files.push(fileId);
      for (const e of edges) {
        const s = this.ids.get(e.source);
        const t = this.ids.get(e.target);
        if (s === undefined || t === undefined) continue;
        out[k++] = s;
        out[k++] = t;
        out[k++] = nameOf(e.type);
        out[k++] = e.confidence;
        out[k++] = nameOf(e.extractor);
        out[k++] = e.line;
        out[k++] = e.col;
        out[k++] = fileId;
      }
    }
    batch.edges = k === out.length ? out : out.slice(0, k);
    return batch;
  }

  loadDefs(): Map<number, { uid: string; kind: string; qualified_name: string }[]> {
    const out = new Map<number, { uid: string; kind: string; qualified_name: string }[]>();
    for (const r of this.s.defs.iterate() as Iterable<{
      file_id: number;
      uid: string;
      kind: string;
      qualified_name: string;
    }>) {
      let l = out.get(r.file_id);
      if (!l) {
        l = [];
        out.set(r.file_id, l);
      }
      l.push(r);
    }
    return out;
  }

  importPairs(): { importer: number; target: string }[] {
    return this.s.importPairs.all() as { importer: number; target: string }[];
  }

  facts(fileId: number): string {
    return (this.s.facts.get(fileId) as string | undefined) ?? '{"refs":[],"bindings":[],"reexports":[]}';
  }

  forgetHash(id: number): void {
    this.s.forgetHash.run(id);
  }

  touchFile(id: number, mtimeMs: number): void {
    this.s.touch.run(mtimeMs, id);
  }

  upsertFile(f: {
    path: string;
    language: Language;
    hash: string;
    size: number;
    mtimeMs: number;
    durationMs: number;
    error: string | null;
    generation: number;
    facts: string;
  }): number {
    return this.s.upsertFile.get({ ...f, indexedAt: Date.now() }) as number;
  }

  /**
   * Makes the file's nodes exactly `nodes`, keeping the ids of uids that survive (so edges from other
   * files into them stay valid). Returns the files that had edges into removed nodes: they re-resolve.
   */
  replaceFileNodes(
    fileId: number,
    path: string,
    language: Language,
    nodes: GraphNode[],
    oldUids: string[],
  ): { removedDependents: Set<number> } {
    const keep = new Set<string>();
    for (const n of nodes) {
      keep.add(n.uid);
      const meta = n.metadata ? JSON.stringify(n.metadata) : null;
      const existing = this.ids.get(n.uid);
      const args = [
        n.kind,
        n.label,
        n.qualifiedName,
        path,
        n.startLine,
        n.endLine,
        language,
        n.signature ?? null,
        meta,
        fileId,
      ] as const;
      if (existing !== undefined) this.s.updateNode.run(...args, existing);
      else {
        const id = this.insertNode(n.uid, ...args);
        this.ids.set(n.uid, id);
        this.s.insertFts.run(id, n.label, n.qualifiedName, splitWords(`${n.label} ${n.qualifiedName}`));
      }
    }
    const removedDependents = new Set<number>();
    for (const uid of oldUids) {
      if (keep.has(uid)) continue;
      const id = this.ids.get(uid);
      if (id === undefined) continue;
      for (const dep of this.s.dependentsOfNode.all(id, fileId) as number[]) removedDependents.add(dep);
      this.s.deleteNode.run(id);
      this.ids.delete(uid);
    }
    return { removedDependents };
  }

  /** All the file's edges (re-extraction); EdgeWriter replaces only the resolved ones. */
  deleteFileEdges(fileId: number): void {
    this.s.deleteAllEdges.run(fileId);
  }

  insertEdges(fileId: number | null, edges: ResolvedEdge[]): number {
    let missing = 0;
    for (const e of edges) {
      const s = this.ids.get(e.source);
      const t = this.ids.get(e.target);
      if (s === undefined || t === undefined) {
        missing++;
        continue;
      }
      this.s.insertEdge.run(s, t, e.type, e.confidence, e.extractor, e.line, e.col, fileId);
    }
    return missing;
  }

  dependentsOfFile(fileId: number): number[] {
    return this.s.dependentsOfFile.all(fileId, fileId) as number[];
  }

  deleteFile(id: number, uids: string[]): void {
    this.s.deleteFile.run(id);
    for (const u of uids) this.ids.delete(u);
  }

  /** The folder node for `dir` ('' = the repo root) and its ancestors, each contained by its parent. */
  ensureFolder(dir: string): void {
    const uid = folderUid(dir);
    if (this.folders.has(uid)) return;
    const label = dir === '' ? '.' : dir.slice(dir.lastIndexOf('/') + 1);
    const id = this.insertNode(
      uid,
      'folder',
      label,
      dir === '' ? '.' : dir,
      dir,
      null,
      null,
      null,
      null,
      null,
      null,
    );
    this.ids.set(uid, id);
    this.folders.add(uid);
    this.s.insertFts.run(id, label, dir, splitWords(dir));
    if (dir !== '') {
      const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
      this.ensureFolder(parent);
      this.s.insertEdge.run(this.ids.get(folderUid(parent))!, id, 'contains', 1, 'fs/walk', null, null, null);
    }
  }

  /** Drops folders with no indexed file below them. */
  syncFolders(paths: string[]): void {
    const needed = new Set<string>();
    for (const p of paths) {
      let d = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '';
      for (;;) {
        const uid = folderUid(d);
        if (needed.has(uid)) break;
        needed.add(uid);
        if (d === '') break;
        d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '';
      }
    }
    for (const uid of [...this.folders]) {
      if (needed.has(uid)) continue;
      this.s.deleteFolder.run(uid);
      this.folders.delete(uid);
      this.ids.delete(uid);
    }
  }

  /** Externals and dependencies nothing points at any more. */
  collectStubs(): number {
    const gone = this.s.collectStubs.all() as string[];
    for (const u of gone) this.ids.delete(u);
    return gone.length;
  }

  generation(): number {
    return this.s.generation.get() as number;
  }

  /** The extractors' version the last full pass wrote (extract/version.ts); undefined before any. */
  extractionVersion(): number | undefined {
    const stats = this.s.stats.get() as string | null | undefined;
    if (!stats) return undefined;
    try {
      const v = (JSON.parse(stats) as { extraction?: unknown }).extraction;
      return typeof v === 'number' ? v : undefined;
    } catch {
      return undefined;
    }
  }

  setPending(files: number, indexing: boolean): void {
    this.s.pending.run(files, indexing ? 1 : 0);
  }

  finishPass(generation: number, stats: Record<string, number>): void {
    this.s.finish.run(generation, Date.now(), JSON.stringify(stats));
  }

  counts(): { nodes: number; edges: number } {
    return { nodes: this.s.countNodes.get() as number, edges: this.s.countEdges.get() as number };
  }
}
