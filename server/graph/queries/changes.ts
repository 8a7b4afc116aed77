// Changed lines mapped onto the graph: the symbols a diff touched and the board tasks whose references
// name the changed files. The diff itself comes from server/git (the one module that runs git).
import type { Db } from '../../db/open.ts';
import type { GraphReader, NodeRow } from './store.ts';

export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** Changed line ranges on the side that exists (new side; old side for a deleted file). */
  ranges: [number, number][];
}

const SYMBOL_KINDS = new Set([
  'class',
  'interface',
  'type',
  'enum',
  'function',
  'method',
  'variable',
  'constant',
  'heading',
  'module',
]);

/**
 * The innermost symbols whose lines overlap the changed ranges; the file node itself when a change
 * touches no symbol (imports, top-level statements) or the whole file is new or gone.
 */
export function symbolsForChange(r: GraphReader, file: ChangedFile): { node: NodeRow; fileLevel: boolean }[] {
  const nodes = r.s.inFile.all(file.path) as NodeRow[];
  const fileNode = nodes.find((n) => n.kind === 'file' || n.kind === 'doc_file');
  // A new or gone file changes as a whole for whoever imports it; a renamed one too, besides its edits.
  if (file.status === 'added' || file.status === 'deleted')
    return fileNode ? [{ node: fileNode, fileLevel: true }] : [];
  const out = new Map<number, { node: NodeRow; fileLevel: boolean }>();
  let fileLevel = false;
  for (const [a, b] of file.ranges) {
    const hits = nodes.filter(
      (n) =>
        SYMBOL_KINDS.has(n.kind) &&
        n.start_line !== null &&
        n.start_line <= b &&
        (n.end_line ?? n.start_line) >= a,
    );
    const innermost = hits.filter(
      (n) =>
        !hits.some(
          (m) =>
            m.id !== n.id &&
            m.start_line! >= n.start_line! &&
            (m.end_line ?? m.start_line!) <= (n.end_line ?? n.start_line!) &&
            (m.start_line !== n.start_line || m.end_line !== n.end_line),
        ),
    );
    if (innermost.length === 0) fileLevel = true;
    for (const n of innermost) out.set(n.id, { node: n, fileLevel: false });
  }
  if ((fileLevel || file.status === 'renamed') && fileNode)
    out.set(fileNode.id, { node: fileNode, fileLevel: true });
  return [...out.values()];
}

export interface TaskRef {
  id: string;
  title: string;
  status: string;
  matched: string[];
}

const taskStatements = new WeakMap<
  Db,
  { exists: () => boolean; all?: () => { key: string; title: string; status: string; refs: string }[] }
>();

/** Board tasks whose references name a changed file, a folder above one, or a changed symbol. The tasks module may be absent. */
export function tasksReferencing(
  db: Db,
  paths: readonly string[],
  uids: readonly string[],
): { available: boolean; tasks: TaskRef[] } {
  let s = taskStatements.get(db);
  if (!s) {
    const probe = db
      .prepare(
        "SELECT count(*) FROM pragma_table_info('tasks') WHERE name IN ('id', 'key', 'title', 'status', 'refs')",
      )
      .pluck();
    s = { exists: () => probe.get() === 5 };
    taskStatements.set(db, s);
  }
  if (!s.exists()) return { available: false, tasks: [] };
  if (!s.all) {
    const stmt = db.prepare("SELECT key, title, status, refs FROM tasks WHERE refs != '[]'");
    s.all = () => stmt.all() as { key: string; title: string; status: string; refs: string }[];
  }
  const pathSet = new Set(paths);
  const uidSet = new Set(uids);
  const out: TaskRef[] = [];
  for (const t of s.all()) {
    let refs: unknown;
    try {
      refs = JSON.parse(t.refs);
    } catch {
      continue;
    }
    if (!Array.isArray(refs)) continue;
    const matched: string[] = [];
    for (const raw of refs) {
      if (typeof raw !== 'string') continue;
      if (uidSet.has(raw)) {
        matched.push(raw);
        continue;
      }
      const ref = raw
        .replace(/^(code:file:|doc:file:|folder:)/, '')
        .replace(/^\.\//, '')
        .replace(/(#L?\d+.*|:\d+(:\d+)?)$/, '')
        .replace(/\/+$/, '');
      if (!ref) continue;
      if (pathSet.has(ref) || paths.some((p) => p.startsWith(`${ref}/`))) matched.push(raw);
    }
    if (matched.length > 0) out.push({ id: t.key, title: t.title, status: t.status, matched });
  }
  return { available: true, tasks: out };
}
