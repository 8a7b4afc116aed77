// The API surface and the entry points of the repository (issue 31), read from what the extractors
// recorded (extract/surface/): surface entries are nodes of kinds route / mcp_tool / cli_command /
// event_handler with a `handles` edge to their handler; entry points are marked in node metadata
// (`entry`, package.json's `entry_files`). Every statement reads a bounded set: the surface nodes, the
// marked nodes, and at most CANDIDATES unreferenced exports.
import { dbCache } from '../../db/caches.ts';
import type { Db } from '../../db/open.ts';
import { dirOf, joinPath, normalize } from '../project.ts';
import { SURFACE_KINDS } from './vocabulary.ts';

export type SurfaceKindName = (typeof SURFACE_KINDS)[number];

export interface SurfaceEntry {
  uid: string;
  kind: SurfaceKindName;
  method: string | null;
  path: string | null;
  name: string;
  framework: string;
  handler: { uid: string; label: string; file: string | null; line: number | null } | null;
  file: string;
  line: number;
}

/** Unreferenced exported declarations looked at for entry points at most (the rest are not scored). */
const CANDIDATES = 5000;

const KINDS_JSON = JSON.stringify(SURFACE_KINDS);

function build(db: Db) {
  const p = (sql: string) => db.prepare(sql);
  return {
    entries: p(
      `SELECT n.id, n.uid, n.kind, n.label, n.file_path, n.start_line, n.metadata,
              h.uid AS h_uid, h.label AS h_label, h.file_path AS h_file, h.start_line AS h_line, h.kind AS h_kind
         FROM graph_nodes n
         LEFT JOIN graph_edges e ON e.source_id = n.id AND e.edge_type = 'handles'
         LEFT JOIN graph_nodes h ON h.id = e.target_id
        WHERE n.kind IN (SELECT value FROM json_each(?)) AND n.file_id IS NOT NULL
        ORDER BY n.file_path, n.start_line, n.id`,
    ),
    marked: p(
      `SELECT id, uid, kind, label, file_path, start_line, metadata FROM graph_nodes
        WHERE file_id IS NOT NULL AND metadata IS NOT NULL
          AND (metadata LIKE '%"entry":%' OR metadata LIKE '%"entry_files":%')`,
    ),
    byUid: p('SELECT id, uid, kind, label, file_path, start_line FROM graph_nodes WHERE uid = ?'),
    mounts: p(
      `SELECT file_path, metadata FROM graph_nodes
        WHERE kind = 'file' AND file_id IS NOT NULL AND metadata LIKE '%"mounts":%' ORDER BY file_path`,
    ),
    generation: p('SELECT generation FROM graph_state WHERE id = 1').pluck(),
    fileByLabel: p(
      `SELECT id, uid, kind, label, file_path, start_line FROM graph_nodes
        WHERE label IN (SELECT value FROM json_each(?)) AND kind = 'file' LIMIT 50`,
    ),
    // Top-level functions and classes nothing points at (containment aside): exported ones are API.
    unreferenced: p(
      `SELECT n.id, n.uid, n.kind, n.label, n.file_path, n.start_line, n.language, n.signature
         FROM graph_nodes n JOIN graph_edges c ON c.target_id = n.id AND c.edge_type = 'contains'
         JOIN graph_nodes f ON f.id = c.source_id AND f.kind = 'file'
        WHERE n.kind IN ('function', 'class') AND n.file_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.target_id = n.id AND e.edge_type != 'contains')
        ORDER BY n.file_path, n.start_line LIMIT ${CANDIDATES + 1}`,
    ),
  };
}

type Statements = ReturnType<typeof build>;
const cache = dbCache<Statements>();
function statements(db: Db): Statements {
  let s = cache.get(db);
  if (!s) {
    s = build(db);
    cache.set(db, s);
  }
  return s;
}

interface EntryRow {
  id: number;
  uid: string;
  kind: SurfaceKindName;
  label: string;
  file_path: string;
  start_line: number;
  metadata: string | null;
  h_uid: string | null;
  h_label: string | null;
  h_file: string | null;
  h_line: number | null;
  h_kind: string | null;
}

function parseMeta(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Every surface entry, in file and line order, route paths as served (mounts applied). */
export function surfaceEntries(db: Db): SurfaceEntry[] {
  const out = surfaceEntriesRaw(db);
  const mounted = mountedPaths(db, out);
  if (mounted.size > 0)
    for (const e of out) {
      const path = mounted.get(e.uid);
      if (path === undefined) continue;
      e.path = path;
      e.name = routeName(e.method, path);
    }
  return out;
}

/** Every surface entry as its file registers it. */
function surfaceEntriesRaw(db: Db): SurfaceEntry[] {
  const out: SurfaceEntry[] = [];
  let last = -1;
  for (const r of statements(db).entries.all(KINDS_JSON) as EntryRow[]) {
    // One handler per entry (a reference resolves to one target); a duplicate row is a second edge.
    if (r.id === last) continue;
    last = r.id;
    const m = parseMeta(r.metadata);
    out.push({
      uid: r.uid,
      kind: r.kind,
      method: str(m.method),
      path: str(m.path),
      name: str(m.name) ?? r.label,
      framework: str(m.framework) ?? 'unknown',
      handler:
        r.h_uid && r.h_label !== null
          ? { uid: r.h_uid, label: r.h_label, file: r.h_file, line: r.h_line }
          : null,
      file: r.file_path,
      line: r.start_line,
    });
  }
  return out;
}

/** `path` filters: a route path prefix (`/api`) or a file or folder of the repository. */
export function matchesPath(e: SurfaceEntry, path: string): boolean {
  if (path.startsWith('/'))
    return e.path !== null && (e.path === path || e.path.startsWith(path.replace(/\/?$/, '/')));
  const p = path.replace(/^\.\//, '').replace(/\/+$/, '');
  return p === '' || p === '.' || e.file === p || e.file.startsWith(`${p}/`);
}

export interface EntryPoint {
  uid: string;
  label: string;
  kind: string;
  file: string | null;
  line: number | null;
  score: number;
  reasons: string[];
  is_test: boolean;
}

const REASON_SCORE: Record<string, number> = {
  bin: 100,
  main: 90,
  route: 80,
  mcp_tool: 80,
  cli_command: 85,
  event_handler: 50,
  exported: 30,
};

const MARK_REASON: Record<string, string> = {
  python_main: 'if __name__ == "__main__"',
  go_main: 'func main in package main',
  java_main: 'public static void main',
};

/** The file a package.json names, or its source (`dist/cli.js` → `src/cli.ts`) when the graph has that. */
function manifestTarget(
  db: Db,
  manifest: string,
  file: string,
):
  | {
      id: number;
      uid: string;
      kind: string;
      label: string;
      file_path: string | null;
      start_line: number | null;
    }
  | undefined {
  const dir = manifest.includes('/') ? manifest.slice(0, manifest.lastIndexOf('/') + 1) : '';
  const parts: string[] = [];
  for (const seg of `${dir}${file}`.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  const path = parts.join('/');
  const base = path.replace(/\.[cm]?js$/, '');
  const candidates = [path, ...['.ts', '.mts', '.cts', '.tsx'].map((e) => base + e)];
  for (const from of ['dist/', 'build/', 'lib/', 'out/']) {
    const i = base.indexOf(from);
    if (i === 0 || (i > 0 && base[i - 1] === '/'))
      for (const to of ['src/', 'server/', ''])
        for (const e of ['.ts', '.mts', '.tsx', '.js', '.mjs'])
          candidates.push(`${base.slice(0, i)}${to}${base.slice(i + from.length)}${e}`);
  }
  const s = statements(db);
  for (const c of candidates) {
    const n = s.byUid.get(`code:file:${c}`) as ReturnType<typeof manifestTarget>;
    if (n) return n;
  }
  // A built bin (`dist/cos.js`) whose source is a bin of its name elsewhere (`server/bin/cos.mjs`).
  const name = base.slice(base.lastIndexOf('/') + 1);
  const labels = JSON.stringify(['.ts', '.mts', '.js', '.mjs', '.cjs'].map((e) => name + e));
  const bins = (s.fileByLabel.all(labels) as NonNullable<ReturnType<typeof manifestTarget>>[]).filter(
    (n) => n.file_path !== null && /(^|\/)bin\//.test(n.file_path) && n.file_path.startsWith(dir),
  );
  return bins.length === 1 ? bins[0] : undefined;
}

/**
 * Entry points, best first: what a package starts from (bin, main), program mains, the handlers of
 * routes, tools, commands and events, and exported declarations nothing in the repository uses.
 * `isTest` says which files are tests (scored apart, after the rest). `exported` reads whether an
 * unreferenced declaration is exported (the graph does not store it).
 */
export function entryPoints(
  db: Db,
  options: {
    isTest: (path: string) => boolean;
    exported: (n: {
      file_path: string;
      start_line: number;
      label: string;
      language: string | null;
      signature: string | null;
    }) => boolean;
  },
): { entries: EntryPoint[]; candidatesCut: boolean } {
  const s = statements(db);
  const byUid = new Map<
    string,
    { node: Omit<EntryPoint, 'score' | 'reasons' | 'is_test'>; reasons: { key: string; text: string }[] }
  >();
  const add = (
    n: { uid: string; kind: string; label: string; file_path: string | null; start_line: number | null },
    key: string,
    text: string,
  ) => {
    let e = byUid.get(n.uid);
    if (!e) {
      e = {
        node: { uid: n.uid, label: n.label, kind: n.kind, file: n.file_path, line: n.start_line },
        reasons: [],
      };
      byUid.set(n.uid, e);
    }
    if (!e.reasons.some((r) => r.text === text)) e.reasons.push({ key, text });
  };
  for (const n of s.marked.all() as {
    uid: string;
    kind: string;
    label: string;
    file_path: string;
    start_line: number;
    metadata: string;
  }[]) {
    const m = parseMeta(n.metadata);
    if (Array.isArray(m.entry))
      for (const mark of m.entry) if (typeof mark === 'string') add(n, 'main', MARK_REASON[mark] ?? mark);
    if (Array.isArray(m.entry_files))
      for (const f of m.entry_files as { path?: unknown; reason?: unknown }[]) {
        if (typeof f?.path !== 'string' || typeof f.reason !== 'string') continue;
        const target = manifestTarget(db, n.file_path, f.path);
        const key = f.reason.includes(' bin') ? 'bin' : 'main';
        // A file the graph does not hold (built, not committed): the manifest that names it stands in.
        if (target) add(target, key, f.reason);
        else add(n, key, `${f.reason} (${f.path}: not in the graph)`);
      }
  }
  for (const e of surfaceEntries(db)) {
    if (!e.handler || e.handler.file === null) continue;
    const what = e.kind === 'route' ? `route ${e.name}` : `${e.kind.replace('_', ' ')} ${e.name}`;
    const h = s.byUid.get(e.handler.uid) as
      | { uid: string; kind: string; label: string; file_path: string | null; start_line: number | null }
      | undefined;
    if (h) add(h, e.kind, `handles ${what}`);
  }
  const rows = s.unreferenced.all() as {
    uid: string;
    kind: string;
    label: string;
    file_path: string;
    start_line: number;
    language: string | null;
    signature: string | null;
  }[];
  const candidatesCut = rows.length > CANDIDATES;
  for (const n of rows.slice(0, CANDIDATES)) {
    if (byUid.has(n.uid) || !options.exported(n)) continue;
    add(n, 'exported', 'exported, and nothing in the repository uses it');
  }
  const entries: EntryPoint[] = [];
  for (const { node, reasons } of byUid.values()) {
    const scores = reasons.map((r) => REASON_SCORE[r.key] ?? 10).sort((a, b) => b - a);
    // The strongest reason, and a little for each other one (a handler of three routes beats one of one).
    let score = Math.min(100, (scores[0] ?? 0) + 3 * (scores.length - 1));
    const isTest = node.file !== null && options.isTest(node.file);
    if (isTest) score = Math.round(score / 5);
    entries.push({ ...node, score, reasons: reasons.map((r) => r.text), is_test: isTest });
  }
  entries.sort(
    (a, b) =>
      Number(a.is_test) - Number(b.is_test) ||
      b.score - a.score ||
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      a.uid.localeCompare(b.uid),
  );
  return { entries, candidatesCut };
}

const routeName = (method: string | null, path: string) => `${method ?? 'ANY'} ${path}`;

function joinRoute(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path || path === '/') return prefix.length > 1 ? prefix.replace(/\/+$/, '') : prefix;
  return `${prefix.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

interface Mount {
  prefix: string;
  target: string;
  module?: string;
  imported?: string;
}

const JS_EXTS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

/** The files a mount's target can be registered in: its own file, or the module its import names. */
function mountFiles(db: Db, from: string, m: Mount): string[] {
  if (!m.module) return [from];
  const has = (p: string) => statements(db).byUid.get(`code:file:${p}`) !== undefined;
  const dir = dirOf(from);
  const out: string[] = [];
  if (from.endsWith('.py')) {
    // `from .routers import items`: the package, or its submodule `items`.
    const mods = [m.module];
    if (m.imported && m.imported !== '*')
      mods.push(`${m.module}${m.module.endsWith('.') ? '' : '.'}${m.imported}`);
    for (const mod of mods) {
      const rel = /^(\.+)(.*)$/.exec(mod);
      const roots: string[] = [];
      let rest = mod;
      if (rel) {
        let d = dir;
        for (let i = 1; i < rel[1]!.length; i++) d = dirOf(d);
        roots.push(d);
        rest = rel[2]!;
      } else
        for (let d = dir, i = 0; i < 20; d = dirOf(d), i++) {
          roots.push(d);
          if (d === '') break;
        }
      const rp = rest.replaceAll('.', '/');
      for (const root of roots)
        for (const c of rp ? [`${rp}.py`, `${rp}/__init__.py`] : ['__init__.py']) {
          const p = normalize(joinPath(root, c));
          if (has(p) && !out.includes(p)) out.push(p);
        }
    }
    return out;
  }
  if (!m.module.startsWith('.')) return out;
  const base = normalize(joinPath(dir, m.module));
  const stem = base.replace(/\.[cm]?jsx?$/, '');
  for (const c of [base, ...JS_EXTS.map((e) => stem + e), ...JS_EXTS.map((e) => `${base}/index${e}`)])
    if (has(c)) return [c];
  return out;
}

const mountCache = dbCache<{ generation: number; paths: Map<string, string> }>();

/**
 * The full path of each route served under a mount (`app.use('/orders', orders)` in another file or
 * the same one, `include_router(items.router, prefix='/items')`, `register_blueprint(bp, url_prefix=…)`;
 * a mount of a file whose routes are mounted adds that prefix too, up to four deep). The routes of the
 * mounted router are picked by the router they are registered on when the mount names one
 * (`items.router`, `{ router as orders }`, a blueprint imported by name, a router of the same file), else
 * they are every route of the file the import names. Kept per graph generation.
 */
function mountedPaths(db: Db, entries: SurfaceEntry[]): Map<string, string> {
  const st = statements(db);
  const generation = st.generation.get() as number;
  const cached = mountCache.get(db);
  if (cached && cached.generation === generation) return cached.paths;
  const paths = new Map<string, string>();
  mountCache.set(db, { generation, paths });
  const rows = st.mounts.all() as { file_path: string; metadata: string }[];
  if (rows.length === 0) return paths;
  const receivers = new Map<string, string | undefined>();
  for (const r of st.entries.all(KINDS_JSON) as EntryRow[])
    if (r.kind === 'route') receivers.set(r.uid, str(parseMeta(r.metadata).receiver) ?? undefined);
  const routesByFile = new Map<string, { uid: string; receiver: string | undefined; path: string }[]>();
  for (const e of entries) {
    if (e.kind !== 'route' || e.path === null) continue;
    const list = routesByFile.get(e.file) ?? [];
    list.push({ uid: e.uid, receiver: receivers.get(e.uid), path: e.path });
    routesByFile.set(e.file, list);
  }
  // Each mounted route: the first mount that serves it, and the file that mounts it.
  const via = new Map<string, { prefix: string; from: string }>();
  // The mount a whole file's routes are served under, for mounts of mounts.
  const fileMount = new Map<string, { prefix: string; from: string }>();
  for (const row of rows) {
    const meta = parseMeta(row.metadata);
    if (!Array.isArray(meta.mounts)) continue;
    for (const m of meta.mounts as Mount[]) {
      if (typeof m?.prefix !== 'string' || typeof m.target !== 'string') continue;
      const [head, ...rest] = m.target.split('.');
      const wanted =
        rest.length > 0
          ? rest.join('.')
          : !m.module
            ? head
            : m.imported && m.imported !== '*' && m.imported !== 'default'
              ? m.imported
              : undefined;
      for (const file of mountFiles(db, row.file_path, m)) {
        if (file !== row.file_path && !fileMount.has(file))
          fileMount.set(file, { prefix: m.prefix, from: row.file_path });
        for (const r of routesByFile.get(file) ?? [])
          if ((wanted === undefined || r.receiver === wanted) && !via.has(r.uid))
            via.set(r.uid, { prefix: m.prefix, from: row.file_path });
      }
    }
  }
  const outer = (file: string, depth: number): string => {
    const up = fileMount.get(file);
    return up && depth < 4 ? joinRoute(outer(up.from, depth + 1), up.prefix) : '';
  };
  for (const list of routesByFile.values())
    for (const r of list) {
      const v = via.get(r.uid);
      if (v) paths.set(r.uid, joinRoute(joinRoute(outer(v.from, 0), v.prefix), r.path));
    }
  return paths;
}

/** What a surface node's metadata says of it, a route's path as served; undefined for another kind. */
export function surfaceOf(
  db: Db,
  n: { uid: string; kind: string; label: string; metadata: string | null },
): { kind: SurfaceKindName; method: string | null; path: string | null; name: string } | undefined {
  if (!(SURFACE_KINDS as readonly string[]).includes(n.kind)) return undefined;
  const m = parseMeta(n.metadata);
  const method = str(m.method);
  if (n.kind === 'route') {
    const cached = mountCache.get(db);
    const paths =
      cached && cached.generation === (statements(db).generation.get() as number)
        ? cached.paths
        : mountedPaths(db, surfaceEntriesRaw(db));
    const mounted = paths.get(n.uid);
    if (mounted !== undefined)
      return { kind: 'route', method, path: mounted, name: routeName(method, mounted) };
  }
  return { kind: n.kind as SurfaceKindName, method, path: str(m.path), name: str(m.name) ?? n.label };
}
