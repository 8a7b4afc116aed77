// The indexer: walks the repo, extracts changed files, writes their nodes in one transaction per file
// batch, and re-resolves the edges of every file whose targets may have moved. Runs wherever it is
// given a connection: the worker thread in the hub, in-process in tests and benchmarks.
import { isAbsolute } from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../db/open.ts';
import { SURFACE_NODE_KINDS } from './extract/surface/common.ts';
import { EXTRACTION_VERSION } from './extract/version.ts';
import { decodeFacts } from './facts.ts';
import { languageOf } from './parser.ts';
import {
  type ExtractJob,
  type ExtractModel,
  type ExtractOutcome,
  type Extractor,
  extractHere,
} from './pool.ts';
import { dirOf, normalize, readTsPaths } from './project.ts';
import { type Def, type FileRec, type Project, type ResolvedEdge, Resolver } from './resolve.ts';
import { type EdgeBatch, EdgeWriter, forBulkWrites, GraphStore } from './store.ts';
import type { FileFacts, GraphNode, Ref } from './types.ts';
import { folderUid } from './uid.ts';
import { type WalkedFile, Walker, type WalkOptions } from './walk.ts';

export interface IndexProgress {
  phase: 'scan' | 'extract' | 'resolve' | 'done';
  done: number;
  total: number;
  generation: number;
}

export interface IndexRequest {
  /** Re-extract every file even when its content hash is unchanged. */
  force?: boolean;
  /** Only look at these repo-relative paths (files or directories), e.g. from the watcher. */
  paths?: string[];
  /**
   * Forget what this indexer remembers and read the graph back from the database first: another
   * connection (the doctor's fix) deleted rows, and stale uid → id entries would point edges at them.
   */
  reload?: boolean;
  onProgress?: (p: IndexProgress) => void;
  /** Checked between batches: a pass stops early (what it wrote so far stays consistent). */
  signal?: AbortSignal;
}

export interface IndexResult {
  generation: number;
  filesSeen: number;
  filesChanged: number;
  filesDeleted: number;
  filesFailed: number;
  filesResolved: number;
  nodes: number;
  edges: number;
  bytes: number;
  durationMs: number;
}

export interface IndexerOptions {
  repo: string;
  db: Db;
  logger?: Logger;
  walk?: WalkOptions;
  /** How batches are extracted (default: in this thread); the worker passes its thread pool. */
  extract?: Extractor;
  /**
   * Writes a batch of resolved edges on another connection, in another thread (an extraction
   * helper's, idle while this thread resolves), so that this thread resolves the next batch while
   * SQLite writes the last. Absent: written here. Used when a pass resolves more than one batch.
   */
  writeEdges?: (batch: EdgeBatch) => Promise<void>;
}

interface Rec extends FileRec {
  hash: string;
  size: number;
  mtimeMs: number;
  /** uids of the nodes this file owns. */
  uids: string[];
  /** Whether some import went unresolved (a new file may satisfy it). */
  unresolvedImports: boolean;
  /** Package names a manifest declares. */
  deps?: string[];
}

const EXTRACT_BATCH = 48;
/**
 * Batches handed out beyond the one being written. With one, a helper that finished the next batch
 * while this thread was still writing (the batch's last chunks are its smallest) waited for the write
 * to end before it got more: its thread stood idle about a fifth of the extract phase of issue 16's mix.
 */
const BATCHES_AHEAD = 2;
/** Files whose change alters resolution project-wide (dependencies, module roots, path aliases). */
const CONFIG_FILE =
  /(^|\/)(package\.json|go\.mod|Cargo\.toml|pyproject\.toml|requirements[^/]*\.txt|[tj]sconfig\.json)$/;
const RESOLVE_BATCH = 64;
/** A repo-relative path, or undefined for one that leaves the repo (`../x`, `/etc/x`). */
export function repoPath(raw: string): string | undefined {
  if (isAbsolute(raw) || raw.includes('\0')) return undefined;
  const p = normalize(raw.replaceAll('\\', '/'));
  return p === '..' || p.startsWith('../') ? undefined : p;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export class Indexer {
  readonly repo: string;
  private readonly store: GraphStore;
  private readonly walker: Walker;
  private readonly files = new Map<string, Rec>();
  private readonly byId = new Map<number, Rec>();
  /** path → files whose imports resolved to it (re-resolved when it changes). */
  private readonly importers = new Map<string, Set<string>>();
  private readonly resolver: Resolver;
  private readonly project: Project;
  private loaded = false;
  /** A pass failed while resolution's writes were out: the next one reads the graph back first. */
  private stale = false;
  private writerHere: EdgeWriter | undefined;
  private get writer(): EdgeWriter {
    this.writerHere ??= new EdgeWriter(this.options.db);
    return this.writerHere;
  }

  constructor(private readonly options: IndexerOptions) {
    this.repo = options.repo;
    forBulkWrites(options.db);
    this.store = new GraphStore(options.db);
    this.walker = new Walker(options.repo, options.walk);
    this.project = { deps: new Set(), goModules: [] };
    this.resolver = new Resolver(this.files as Map<string, FileRec>, this.project);
  }

  /** Reads what a previous run left in the database, so an unchanged repo costs one stat per file. */
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    this.store.loadNodeIds();
    const defsByFile = this.store.loadDefs();
    for (const row of this.store.allFiles()) {
      const facts = decodeFacts(row.facts);
      const rec = this.makeRec(
        row.id,
        row.path,
        row.language as Rec['language'],
        facts,
        defsByFile.get(row.id) ?? [],
      );
      rec.hash = row.hash;
      rec.size = row.size;
      rec.mtimeMs = row.mtime_ms;
      this.files.set(rec.path, rec);
      this.byId.set(rec.id, rec);
    }
    for (const { importer, target } of this.store.importPairs()) {
      const from = this.byId.get(importer);
      if (from) this.addImporter(target, from.path);
    }
    this.refreshProject();
  }

  private makeRec(
    id: number,
    path: string,
    language: Rec['language'],
    facts: FileFacts,
    nodes: { uid: string; kind: string; qualified_name: string }[],
  ): Rec {
    const defs = new Map<string, Def[]>();
    const uids: string[] = [];
    for (const n of nodes) {
      uids.push(n.uid);
      // Surface entries are named by route or command, never by a call: they are no definitions.
      if (n.kind === 'file' || n.kind === 'doc_file' || SURFACE_NODE_KINDS.has(n.kind)) continue;
      let l = defs.get(n.qualified_name);
      if (!l) {
        l = [];
        defs.set(n.qualified_name, l);
      }
      l.push({ uid: n.uid, kind: n.kind as Def['kind'] });
    }
    const rec: Rec = {
      id,
      path,
      language,
      defs,
      bindings: new Map(facts.bindings.map((b) => [b.local, b])),
      reexports: facts.reexports,
      hash: '',
      size: 0,
      mtimeMs: 0,
      uids,
      unresolvedImports: false,
    };
    if (facts.pkg !== undefined) rec.pkg = facts.pkg;
    if (facts.bases) rec.bases = facts.bases;
    if (facts.fieldTypes) rec.fieldTypes = facts.fieldTypes;
    if (facts.returnTypes) rec.returnTypes = facts.returnTypes;
    if (facts.valueVia) rec.valueVia = facts.valueVia;
    if (facts.deps) rec.deps = facts.deps.map((d) => d.name);
    return rec;
  }

  private addImporter(target: string, importer: string): void {
    let s = this.importers.get(target);
    if (!s) {
      s = new Set();
      this.importers.set(target, s);
    }
    s.add(importer);
  }

  /** tsconfig paths, manifest dependencies, go.mod modules: re-read when a config file changes. */
  private refreshProject(): void {
    const tsPaths = readTsPaths(this.repo);
    if (tsPaths) this.project.tsPaths = tsPaths;
    else delete this.project.tsPaths;
    this.project.deps = new Set();
    for (const rec of this.files.values()) for (const d of rec.deps ?? []) this.project.deps.add(d);
    this.project.goModules = [];
    for (const rec of this.files.values()) {
      if (!rec.path.endsWith('go.mod')) continue;
      // A go.mod deleted under us (or become a symlink) reads as nothing: the next pass prunes it.
      const m = /^module\s+(\S+)/m.exec(this.walker.files.readText(rec.path) ?? '');
      if (m?.[1]) this.project.goModules.push({ dir: dirOf(rec.path), module: m[1] });
    }
  }

  /** Files of the pass in progress that were extracted or made dirty but not yet re-resolved. */
  private unfinished = new Set<string>();

  async run(req: IndexRequest = {}): Promise<IndexResult> {
    try {
      return await this.pass(req);
    } catch (err) {
      // A pass cut short (closing, or a failure) must not leave files looking up to date: forget
      // their hashes so the next pass extracts and resolves them again.
      const rows = [...this.unfinished].map((p) => this.files.get(p)).filter((r): r is Rec => !!r);
      this.store.transaction(() => {
        for (const r of rows) {
          r.hash = '';
          r.mtimeMs = 0;
          this.store.forgetHash(r.id);
        }
      });
      this.store.setPending(0, false);
      throw err;
    } finally {
      this.unfinished = new Set();
    }
  }

  private async pass(req: IndexRequest): Promise<IndexResult> {
    const started = performance.now();
    if (req.reload || this.stale) {
      this.stale = false;
      this.loaded = false;
      this.files.clear();
      this.byId.clear();
      this.importers.clear();
      this.resolver.invalidate();
    }
    this.load();
    const generation = this.store.generation() + 1;
    const progress = (phase: IndexProgress['phase'], done: number, total: number) =>
      req.onProgress?.({ phase, done, total, generation });

    // 1. Which files exist now, and which of them changed.
    progress('scan', 0, 0);
    const seen = new Map<string, WalkedFile>();
    const deleted = new Set<string>();
    const scoped = req.paths?.map(repoPath).filter((p): p is string => p !== undefined);
    // '' is the repo root: the same as no paths at all.
    if (scoped && !scoped.includes('')) {
      for (const p of scoped) {
        const f = this.walker.check(p);
        if (f) seen.set(f.path, f);
        else {
          if (this.files.has(p)) deleted.add(p);
          const under = `${p}/`;
          // A directory: walk what exists below it now, and forget what vanished.
          const { files } = this.walker.walk(p);
          for (const wf of files) seen.set(wf.path, wf);
          for (const known of this.files.keys())
            if (known.startsWith(under) && !seen.has(known)) deleted.add(known);
        }
      }
    } else {
      for (const f of this.walker.walk().files) seen.set(f.path, f);
      for (const known of this.files.keys()) if (!seen.has(known)) deleted.add(known);
    }
    // A graph extracted by other extractors is read again whole, once, by the first full pass.
    const full = !scoped || scoped.includes('');
    const version = this.store.extractionVersion();
    const force = req.force || (full && version !== EXTRACTION_VERSION);

    // Candidates by size and mtime; content is read (and hashed) batch by batch, so a cold pass never
    // holds the whole repo's text at once.
    const candidates: WalkedFile[] = [];
    for (const f of seen.values()) {
      const known = this.files.get(f.path);
      if (!force && known && known.size === f.size && known.mtimeMs === f.mtimeMs) continue;
      candidates.push(f);
    }
    this.store.setPending(candidates.length + deleted.size, true);

    // 2. Extract and write, in batches (one transaction each) so readers see steady progress. The
    // extractor reads the files itself (on a helper thread, when there is one): no source text passes
    // through this thread. Two batches are out while this one is written, so the helpers extract
    // while this thread writes.
    const dirty = new Set<string>();
    this.unfinished = dirty;
    // A few changed files keep their references in memory for resolution; a cold pass reads them back.
    const keepRefs = candidates.length <= 500;
    const freshFacts = new Map<string, string>();
    let failed = 0;
    let changedCount = 0;
    let bytes = 0;
    let configChanged = false;
    const changedPackages = new Set<string>();
    let addedOrRemoved = deleted.size > 0;
    const extract = this.options.extract ?? extractHere;
    const jobsFrom = (start: number): ExtractJob[] =>
      candidates.slice(start, start + EXTRACT_BATCH).map((f) => {
        const known = force ? undefined : this.files.get(f.path)?.hash;
        return { path: f.path, language: languageOf(f.path)!, size: f.size, ...(known ? { known } : {}) };
      });
    progress('extract', 0, candidates.length);
    const handedOut: Promise<ExtractOutcome[]>[] = [];
    const handOut = (start: number) => {
      if (start < candidates.length) handedOut.push(extract(this.repo, jobsFrom(start)));
    };
    for (let k = 0; k < BATCHES_AHEAD; k++) handOut(k * EXTRACT_BATCH);
    try {
      for (let i = 0; i < candidates.length; i += EXTRACT_BATCH) {
        const outcomes = await handedOut.shift()!;
        handOut(i + BATCHES_AHEAD * EXTRACT_BATCH);
        const batch = candidates.slice(i, i + EXTRACT_BATCH);
        this.store.transaction(() => {
          batch.forEach((file, k) => {
            const o = outcomes[k]!;
            const path = file.path;
            const known = this.files.get(path);
            if (o.status === 'unreadable') {
              if (known) deleted.add(path);
              return;
            }
            if (o.status === 'unchanged') {
              known!.mtimeMs = file.mtimeMs;
              this.store.touchFile(known!.id, file.mtimeMs);
              return;
            }
            changedCount++;
            bytes += file.size;
            if (o.error) failed++;
            if (CONFIG_FILE.test(path)) configChanged = true;
            const language = languageOf(path)!;
            if (!known) addedOrRemoved = true;
            const { nodes, meta } = JSON.parse(o.model) as ExtractModel;
            const id = this.store.upsertFile({
              path,
              language,
              hash: o.hash,
              size: file.size,
              mtimeMs: file.mtimeMs,
              durationMs: o.ms,
              error: o.error ?? null,
              generation,
              facts: o.facts,
            });
            const { removedDependents } = this.store.replaceFileNodes(
              id,
              path,
              language,
              nodes,
              known?.uids ?? [],
            );
            for (const dep of removedDependents) {
              const r = this.byId.get(dep);
              if (r) dirty.add(r.path);
            }
            this.store.deleteFileEdges(id);
            this.writeContains(id, path, language, nodes);
            const rec = this.makeRec(
              id,
              path,
              language,
              { ...meta, refs: [] },
              nodes.map((n) => ({ uid: n.uid, kind: n.kind, qualified_name: n.qualifiedName })),
            );
            rec.hash = o.hash;
            rec.size = file.size;
            rec.mtimeMs = file.mtimeMs;
            this.files.set(path, rec);
            this.byId.set(id, rec);
            if (keepRefs) freshFacts.set(path, o.facts);
            dirty.add(path);
            for (const imp of this.importers.get(path) ?? []) dirty.add(imp);
            if (language === 'go' || language === 'java') changedPackages.add(`${language}|${dirOf(path)}`);
          });
        });
        progress('extract', Math.min(i + EXTRACT_BATCH, candidates.length), candidates.length);
        await yieldToLoop();
        req.signal?.throwIfAborted();
      }
    } catch (err) {
      // The batches already handed out are not awaited any more.
      for (const p of handedOut) p.catch(() => {});
      throw err;
    }

    // 3. Deleted (and renamed-away) files: cascade their nodes and edges; re-resolve who pointed at them.
    if (deleted.size) {
      this.store.transaction(() => {
        for (const path of deleted) {
          const rec = this.files.get(path);
          if (!rec) continue;
          for (const dep of this.store.dependentsOfFile(rec.id)) {
            const r = this.byId.get(dep);
            if (r && r.path !== path) dirty.add(r.path);
          }
          for (const imp of this.importers.get(path) ?? []) dirty.add(imp);
          this.store.deleteFile(rec.id, rec.uids);
          this.files.delete(path);
          this.byId.delete(rec.id);
          this.importers.delete(path);
        }
      });
    }
    if (changedCount || deleted.size) this.resolver.invalidate();
    if (addedOrRemoved) {
      // A new file may satisfy an import that failed before.
      for (const rec of this.files.values()) if (rec.unresolvedImports) dirty.add(rec.path);
    }
    if (configChanged || deleted.size) {
      this.refreshProject();
    }
    // Go and Java see their package without imports: a change may resolve a sibling's bare call.
    if (changedPackages.size) {
      for (const rec of this.files.values()) {
        if (changedPackages.has(`${rec.language}|${dirOf(rec.path)}`)) dirty.add(rec.path);
      }
    }
    for (const d of deleted) dirty.delete(d);

    // 4. Resolve the dirty files' references into edges. Documents first: the index of symbols by
    // label that their inline code is matched against (an entry per symbol) is dropped after them.
    const dirtyDocs: string[] = [];
    const dirtyCode: string[] = [];
    for (const p of dirty) {
      const rec = this.files.get(p);
      if (rec) (rec.language === 'markdown' ? dirtyDocs : dirtyCode).push(p);
    }
    const dirtyList = [...dirtyDocs, ...dirtyCode];
    progress('resolve', 0, dirtyList.length);
    // A batch's writes go to another thread when there are several batches: SQLite's inserts there,
    // the next batch's resolution here. They are written in order, so a stub a batch adds exists
    // before the next batch's edges point at it.
    const elsewhere = dirtyList.length > RESOLVE_BATCH ? this.options.writeEdges : undefined;
    const writing: Promise<void>[] = [];
    try {
      for (let i = 0; i < dirtyList.length; i += RESOLVE_BATCH) {
        if (i >= dirtyDocs.length) this.resolver.forgetLabels();
        const batch = dirtyList.slice(i, i + RESOLVE_BATCH);
        const files: { fileId: number; edges: ResolvedEdge[] }[] = [];
        for (const p of batch) {
          const rec = this.files.get(p)!;
          // One file's references at a time, read just before they are resolved: loading a whole
          // batch up front kept them alive across young-generation collections, and V8 promoted
          // them to the old generation, where they stayed as garbage until the next full GC.
          const refs = decodeFacts(freshFacts.get(p) ?? this.store.facts(rec.id)).refs;
          const { edges, importsFiles, unresolvedImports } = this.resolveOne(rec, refs);
          rec.unresolvedImports = unresolvedImports;
          for (const t of importsFiles) this.addImporter(t, p);
          files.push({ fileId: rec.id, edges });
        }
        const edges = this.store.edgeBatch(files, this.resolver.stubs.values());
        this.resolver.stubs.clear();
        const done = Math.min(i + RESOLVE_BATCH, dirtyList.length);
        const written = () => {
          for (const p of batch) dirty.delete(p);
          progress('resolve', done, dirtyList.length);
        };
        if (elsewhere) {
          const w = elsewhere(edges).then(written);
          // Awaited below; until then a failure must not count as unhandled.
          w.catch(() => {});
          writing.push(w);
          // At most two batches in writing: resolved edges wait in memory no longer than that.
          if (writing.length >= 2) await writing.shift();
        } else {
          this.writer.write(edges);
          written();
        }
        await yieldToLoop();
        req.signal?.throwIfAborted();
      }
      await Promise.all(writing);
    } catch (err) {
      for (const w of writing) w.catch(() => {});
      // Stub ids were given for batches that may not have been written: read the graph back first.
      this.stale = true;
      throw err;
    }
    this.resolver.forgetLabels();

    // 5. Housekeeping: folders, stubs nobody points at, and the state row.
    this.store.transaction(() => {
      this.store.syncFolders([...this.files.keys()]);
      if (deleted.size || changedCount) this.store.collectStubs();
      this.store.finishPass(generation, {
        files: this.files.size,
        changed: changedCount,
        deleted: deleted.size,
        failed,
        resolved: dirtyList.length,
        ...(full ? { extraction: EXTRACTION_VERSION } : version !== undefined ? { extraction: version } : {}),
      });
    });
    const counts = this.store.counts();
    const result: IndexResult = {
      generation,
      filesSeen: seen.size,
      filesChanged: changedCount,
      filesDeleted: deleted.size,
      filesFailed: failed,
      filesResolved: dirtyList.length,
      nodes: counts.nodes,
      edges: counts.edges,
      bytes,
      durationMs: performance.now() - started,
    };
    progress('done', changedCount, changedCount);
    this.options.logger?.debug({ ...result }, 'graph index pass');
    return result;
  }

  private resolveOne(rec: Rec, refs: Ref[]) {
    const { edges, importsFiles, unresolvedLocal } = this.resolver.resolveFile(rec, refs);
    return { edges, importsFiles, unresolvedImports: unresolvedLocal };
  }

  /** Structural edges, owned by the file: folder → file → top-level symbols → members. */
  private writeContains(fileId: number, path: string, language: string, nodes: GraphNode[]): void {
    const extractor = `${language}/extract`;
    const root = nodes[0];
    if (!root) return;
    const folder = folderUid(dirOf(path));
    this.store.ensureFolder(dirOf(path));
    this.store.insertEdges(fileId, [
      { source: folder, target: root.uid, type: 'contains', confidence: 1, extractor, line: 1, col: 1 },
      ...nodes
        .filter((n) => n.parent)
        .map((n) => ({
          source: n.parent!,
          target: n.uid,
          type: 'contains' as const,
          confidence: 1,
          extractor,
          line: n.startLine,
          col: 1,
        })),
    ]);
  }
}
