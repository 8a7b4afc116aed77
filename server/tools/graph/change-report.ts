// The one engine behind cos_graph_detect_changes and cos_task_changes: a diff (files and hunks) mapped to
// the changed symbols, who depends on each (impact tiers), the tests that cover them (the graph's `tests`
// edges and test files among the dependents), the board tasks naming the files, and a risk level with
// its reasons. The two tools differ only in which diff they ask git for.
import { type Static, Type } from '@sinclair/typebox';
import { isFinished } from '../../board/model.ts';
import { ToolError } from '../../errors.ts';
import type { FileDiff } from '../../git/diff.ts';
import { GitError } from '../../git/run.ts';
import type { DiffResult } from '../../git/service.ts';
import { symbolsForChange, tasksReferencing } from '../../graph/queries/changes.ts';
import type { GraphReader, NodeRow } from '../../graph/queries/store.ts';
import { surfaceOf } from '../../graph/queries/surface.ts';
import { type Reached, walk } from '../../graph/queries/traverse.ts';
import { testSubject } from '../../graph/resolve.ts';
import type { ToolContext } from '../context.ts';
import { completenessOf, type GraphCall, quoteInput } from './common.ts';
import {
  type Impacted,
  ImpactedSchema,
  impactedOut,
  type TouchedEntry,
  TouchedEntrySchema,
  tierOf,
  touchedEntry,
} from './impact.ts';

/** Files whose change moves resolution or the build for the whole project. */
const PROJECT_FILE =
  /(^|\/)(package\.json|package-lock\.json|go\.mod|go\.sum|Cargo\.toml|pyproject\.toml|requirements[^/]*\.txt|[tj]sconfig[^/]*\.json)$/;

/** Per changed symbol, the dependents listed by name (the counts cover them all). */
const PER_SYMBOL = 25;

/** `n` and its noun in the right number: risk reasons are read by people as well as agents. */
export function counted(n: number, one: string, other = `${one}s`): string {
  return `${n} ${n === 1 ? one : other}`;
}
/** Hunk text an agent's answer carries (characters); the browser gets the whole diff git printed. */
const AGENT_HUNK_CHARS = 14_000;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

export const HunkSchema = Type.Object({
  old_start: Type.Integer(),
  old_lines: Type.Integer(),
  new_start: Type.Integer(),
  new_lines: Type.Integer(),
  section: Type.String(),
  lines: Type.Array(Type.String(), { description: "git's lines: first character ' ', '+', '-' or '\\'" }),
});

export const ChangeFileSchema = Type.Object({
  path: Type.String(),
  old_path: Nullable(Type.String()),
  status: Type.String({ description: 'added | modified | deleted | renamed' }),
  lines_changed: Type.Integer(),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  binary: Type.Boolean(),
  indexed: Type.Boolean({ description: 'the graph knows this file' }),
  hunks: Type.Optional(Type.Array(HunkSchema)),
  hunks_cut: Type.Optional(Type.Boolean({ description: 'hunks left out to fit the answer' })),
});

export const ChangedSymbolSchema = Type.Object({
  uid: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  file_path: Nullable(Type.String()),
  start_line: Nullable(Type.Integer()),
  file_level: Type.Boolean({ description: 'the change touched the file outside any symbol' }),
  will_break: Type.Array(Type.String(), {
    description: `uids of direct dependents that break with it (the first ${PER_SYMBOL}; will_break_count has them all, cos_graph_impact on the uid lists the rest)`,
  }),
  will_break_count: Type.Integer(),
  should_review: Type.Array(Type.String(), {
    description: `the first ${PER_SYMBOL}; should_review_count has them all`,
  }),
  should_review_count: Type.Integer(),
  dependents: Type.Integer({ description: 'all dependents first reached from this symbol' }),
  tests: Type.Array(Type.String(), { description: 'test files covering it' }),
});

export const ChangesSchema = Type.Object({
  files: Type.Array(ChangeFileSchema),
  symbols: Type.Array(ChangedSymbolSchema),
});

export const AffectedSchema = Type.Object({
  consumers: Type.Array(Type.Intersect([ImpactedSchema, Type.Object({ tier: Type.String() })])),
  tests: Type.Array(
    Type.Object({
      path: Type.String(),
      covers: Type.Array(Type.String(), {
        description: `changed symbols it covers (the first ${PER_SYMBOL})`,
      }),
      covers_count: Type.Integer({ description: 'all the changed symbols it covers' }),
    }),
  ),
  tasks: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      status: Type.String(),
      matched: Type.Array(Type.String()),
    }),
  ),
  api_surface: Type.Array(TouchedEntrySchema, {
    description:
      'routes, MCP tools, CLI commands and event handlers the change touches: registrations in the changed lines (depth 0) and entries whose handler depends on a changed symbol',
  }),
});

export const SummarySchema = Type.Object(
  {
    files: Type.Integer(),
    symbols: Type.Integer(),
    consumers: Type.Integer(),
    will_break: Type.Integer(),
    tests: Type.Integer(),
    tasks: Type.Integer(),
    api_surface: Type.Integer(),
  },
  {
    description:
      'the whole of each list; each list holds at most `limit` of them from `offset`, and meta.next_offset pages on while any list has more',
  },
);

export const RiskLevelSchema = Type.Union([
  Type.Literal('none'),
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
]);

export const ChangeReportFields = {
  changes: ChangesSchema,
  affected: AffectedSchema,
  summary: SummarySchema,
  risk_level: RiskLevelSchema,
  risk_reasons: Type.Array(Type.String()),
};

export interface ReportOptions {
  depth: number;
  limit: number;
  /** Where every list starts (the previous page's meta.next_offset). */
  offset?: number;
  hunks: boolean;
  /** Files whose working-tree version is not the diff's new side: their symbols are found by line only roughly. */
  approximate?: ReadonlySet<string>;
}

type Risk = Static<typeof RiskLevelSchema>;

export interface ChangeReport {
  changes: Static<typeof ChangesSchema>;
  affected: Static<typeof AffectedSchema>;
  summary: Static<typeof SummarySchema>;
  risk_level: Risk;
  risk_reasons: string[];
  meta: Record<string, unknown>;
}

export function changeReport(
  ctx: ToolContext,
  call: GraphCall,
  diff: DiffResult,
  options: ReportOptions,
): ChangeReport {
  const { r } = call;
  const { depth, limit } = options;
  const offset = options.offset ?? 0;
  const files = diff.files;
  const seeds: number[] = [];
  const changed: { node: NodeRow; fileLevel: boolean }[] = [];
  let lowerBound = false;
  for (const f of files)
    for (const hit of symbolsForChange(r, f)) {
      if (seeds.includes(hit.node.id)) continue;
      seeds.push(hit.node.id);
      changed.push(hit);
      if (completenessOf(r, hit.node).completeness === 'lower_bound') lowerBound = true;
    }
  const { reached, capped, enclosingSeeds } = walk(r, seeds, { direction: 'upstream', depth });
  const seedSet = new Set(seeds);
  /** The changed symbol a dependent was first reached from (the walk keeps the shortest way). */
  const rootOf = (reach: Reached): number => {
    let at = reach;
    for (let i = 0; i < depth + 1 && !seedSet.has(at.from); i++) {
      const up = reached.get(at.from);
      if (!up) break;
      at = up;
    }
    // A dependent of the function a changed nested one is written in depends on that change.
    return enclosingSeeds.get(at.from) ?? at.from;
  };

  const consumers: (Impacted & { tier: string })[] = [];
  const perSeed = new Map<
    number,
    {
      will_break: string[];
      should_review: string[];
      will_break_count: number;
      should_review_count: number;
      count: number;
    }
  >();
  const testsOf = new Map<number, Set<string>>();
  const addTest = (seed: number, path: string) => {
    const s = testsOf.get(seed) ?? new Set<string>();
    testsOf.set(seed, s);
    s.add(path);
  };
  let willBreak = 0;
  for (const reach of reached.values()) {
    const item = impactedOut(r, reach);
    if (!item) continue;
    const tier = tierOf(reach, item.kind);
    if (tier === 'will_break') willBreak++;
    consumers.push({ ...item, tier });
    const root = rootOf(reach);
    const lists = perSeed.get(root) ?? {
      will_break: [],
      should_review: [],
      will_break_count: 0,
      should_review_count: 0,
      count: 0,
    };
    perSeed.set(root, lists);
    lists.count++;
    if (tier === 'will_break' && lists.will_break_count++ < PER_SYMBOL) lists.will_break.push(item.uid);
    if (tier === 'should_review' && lists.should_review_count++ < PER_SYMBOL)
      lists.should_review.push(item.uid);
    if (item.file_path && testSubject(item.file_path) !== undefined) addTest(root, item.file_path);
  }
  const testsEdge = new Set(['tests']);
  for (const { node } of changed) {
    if (node.file_path && testSubject(node.file_path) !== undefined) addTest(node.id, node.file_path);
    const fileNode = node.file_path ? r.node(`code:file:${node.file_path}`) : undefined;
    for (const e of fileNode ? r.in(fileNode.id, testsEdge) : []) {
      const t = r.nodeById(e.other);
      if (t?.file_path) addTest(node.id, t.file_path);
    }
  }
  const surface = touchedSurface(r, files, reached);
  const rank = { will_break: 0, should_review: 1, context: 2 } as Record<string, number>;
  consumers.sort(
    (a, b) => (rank[a.tier] ?? 3) - (rank[b.tier] ?? 3) || a.depth - b.depth || a.uid.localeCompare(b.uid),
  );

  const symbols = changed.map(({ node, fileLevel }) => {
    const lists = perSeed.get(node.id);
    return {
      uid: node.uid,
      kind: node.kind,
      label: node.label,
      file_path: node.file_path,
      start_line: node.start_line,
      file_level: fileLevel,
      will_break: lists?.will_break ?? [],
      will_break_count: lists?.will_break_count ?? 0,
      should_review: lists?.should_review ?? [],
      should_review_count: lists?.should_review_count ?? 0,
      dependents: lists?.count ?? 0,
      tests: [...(testsOf.get(node.id) ?? [])].sort(),
    };
  });
  const byTest = new Map<string, { covers: string[]; count: number }>();
  for (const s of symbols)
    for (const t of s.tests) {
      const entry = byTest.get(t) ?? { covers: [], count: 0 };
      if (entry.count++ < PER_SYMBOL) entry.covers.push(s.uid);
      byTest.set(t, entry);
    }
  const tests = [...byTest.entries()]
    .map(([path, { covers, count }]) => ({ path, covers, covers_count: count }))
    .sort((a, b) => a.path.localeCompare(b.path));

  const paths = files.flatMap((f) => (f.old_path ? [f.path, f.old_path] : [f.path]));
  const { available: board, tasks } = tasksReferencing(
    ctx.db,
    paths,
    symbols.map((s) => s.uid),
  );

  const reasons: string[] = [];
  let risk: Risk = files.length === 0 ? 'none' : 'low';
  const order = { none: 0, low: 1, medium: 2, high: 3 } as const;
  const raise = (to: 'medium' | 'high', why: string) => {
    reasons.push(why);
    if (order[to] > order[risk]) risk = to;
  };
  const list = (xs: string[]) =>
    xs.slice(0, 5).join(', ') + (xs.length > 5 ? ` and ${xs.length - 5} more` : '');
  const project = files.map((f) => f.path).filter((p) => PROJECT_FILE.test(p));
  if (project.length > 0) raise('high', `project configuration changed: ${list(project)}`);
  if (willBreak >= 10) raise('high', `${willBreak} direct dependents may break`);
  else if (willBreak > 0) raise('medium', `${counted(willBreak, 'direct dependent')} may break`);
  const imported = (path: string) => {
    const n = r.node(`code:file:${path}`);
    return n !== undefined && r.in(n.id, new Set(['imports'])).length > 0;
  };
  const gone = files.filter((f) => f.status === 'deleted' && imported(f.path)).map((f) => f.path);
  if (gone.length > 0)
    raise(
      'high',
      `${gone.length === 1 ? 'a deleted file is' : 'deleted files are'} still imported: ${list(gone)}`,
    );
  const renamed = files.filter((f) => f.status === 'renamed').map((f) => `${f.old_path} → ${f.path}`);
  if (renamed.length > 0)
    raise(
      'medium',
      `${renamed.length === 1 ? 'a renamed file' : 'renamed files'}: whoever imports the old path breaks: ${list(renamed)}`,
    );
  if (consumers.length > 0 && willBreak === 0)
    raise('medium', `${counted(consumers.length, 'consumer')} within ${counted(depth, 'hop')}`);
  if (surface.length > 0)
    raise(
      'medium',
      `touches ${counted(surface.length, 'entry point', 'entry points')} of the API surface: ${list(surface.map((e) => `${e.kind === 'route' ? 'route' : e.kind.replace('_', ' ')} ${e.name}`))}`,
    );
  const open = tasks.filter((t) => !isFinished(t.status));
  if (open.length > 0)
    raise(
      'medium',
      `${counted(open.length, 'open task')} ${open.length === 1 ? 'references' : 'reference'} the changed files`,
    );
  const untested = symbols.filter(
    (s) => s.tests.length === 0 && s.kind !== 'heading' && s.kind !== 'doc_file',
  );
  if (symbols.length > 0 && untested.length === symbols.length)
    reasons.push('no test in the graph covers the changed symbols');
  if (lowerBound)
    reasons.push('some changed symbols are also called by name only: consumers are a lower bound');
  const approximate = files.filter((f) => options.approximate?.has(f.path)).map((f) => f.path);
  if (approximate.length > 0)
    reasons.push(
      `${counted(approximate.length, 'file')} ${approximate.length === 1 ? 'differs' : 'differ'} in the working tree from this change's version: ${approximate.length === 1 ? 'its' : 'their'} symbols are located by line number only roughly`,
    );
  if (diff.truncated) reasons.push('the diff was larger than the hub reads: the last files are missing');
  if (files.length > 0 && reasons.length === 0) reasons.push('no indexed code depends on the changed lines');

  const indexed = (p: string) =>
    r.node(`code:file:${p}`) !== undefined || r.node(`doc:file:${p}`) !== undefined;
  const hunkBudget = { left: ctx.caller.transport === 'rest' ? Number.POSITIVE_INFINITY : AGENT_HUNK_CHARS };
  let hunksCut = 0;
  const fileOut = (f: FileDiff) => {
    const out: Static<typeof ChangeFileSchema> = {
      path: f.path,
      old_path: f.old_path,
      status: f.status,
      lines_changed: f.lines_changed,
      additions: f.additions,
      deletions: f.deletions,
      binary: f.binary,
      indexed: indexed(f.path),
    };
    if (!options.hunks) return out;
    out.hunks = [];
    for (const h of f.hunks) {
      const size = h.lines.reduce((n, l) => n + l.length + 4, 60);
      if (size <= hunkBudget.left) {
        hunkBudget.left -= size;
        out.hunks.push(h);
        continue;
      }
      // The part of the hunk that fits, so the answer still shows where and how the file changed.
      const lines: string[] = [];
      let left = hunkBudget.left - 60;
      for (const l of h.lines) {
        if (l.length + 4 > left) break;
        left -= l.length + 4;
        lines.push(l);
      }
      if (lines.length > 0) out.hunks.push({ ...h, lines });
      hunkBudget.left = 0;
      hunksCut += f.hunks.length - out.hunks.length + (lines.length > 0 ? 1 : 0);
      out.hunks_cut = true;
      break;
    }
    return out;
  };

  // Every list is paged the same way, so one next_offset serves them all; summary has each whole count.
  const page = <T>(xs: T[]): T[] => xs.slice(offset, offset + limit);
  const more =
    Math.max(files.length, symbols.length, consumers.length, tests.length, tasks.length, surface.length) >
    offset + limit;
  return {
    changes: { files: page(files).map(fileOut), symbols: page(symbols) },
    affected: {
      consumers: page(consumers),
      tests: page(tests),
      tasks: page(tasks),
      api_surface: page(surface),
    },
    summary: {
      files: files.length,
      symbols: symbols.length,
      consumers: consumers.length,
      will_break: willBreak,
      tests: tests.length,
      tasks: tasks.length,
      api_surface: surface.length,
    },
    risk_level: risk,
    risk_reasons: reasons,
    meta: {
      ...call.meta,
      semantic_scope: `transitive_depth_${depth}`,
      completeness: lowerBound || capped ? 'lower_bound' : 'exact',
      tasks_board: board ? 'present' : 'absent',
      next_offset: more ? offset + limit : null,
      ...(diff.truncated ? { diff_truncated: true } : {}),
      ...(hunksCut > 0 ? { hunks_held_back: hunksCut } : {}),
    },
  };
}

/**
 * The surface entries a change touches: those registered in the changed lines (depth 0), then those the
 * walk reached (a changed handler, or a function a handler relies on), nearest first.
 */
function touchedSurface(
  r: GraphReader,
  files: readonly FileDiff[],
  reached: Map<number, Reached>,
): TouchedEntry[] {
  const out: TouchedEntry[] = [];
  const seen = new Set<number>();
  for (const f of files) {
    if (f.status === 'deleted') continue;
    for (const n of r.s.inFile.all(f.path) as NodeRow[]) {
      const s = surfaceOf(r.db, n);
      if (!s || n.start_line === null) continue;
      const end = n.end_line ?? n.start_line;
      if (f.status !== 'added' && !f.ranges.some(([a, b]) => n.start_line! <= b && end >= a)) continue;
      seen.add(n.id);
      out.push({ uid: n.uid, ...s, file: n.file_path, line: n.start_line, depth: 0, via_uid: n.uid });
    }
  }
  const walked: TouchedEntry[] = [];
  for (const reach of reached.values()) {
    if (seen.has(reach.id)) continue;
    const t = touchedEntry(r, reach);
    if (t) walked.push(t);
  }
  walked.sort((a, b) => a.depth - b.depth || a.uid.localeCompare(b.uid));
  return [...out, ...walked];
}

/** A git failure as the tool's error: about the caller's revisions when it names them, else the hub's. */
export function gitToolError(
  ctx: ToolContext,
  tool: string,
  err: unknown,
  revs: (string | undefined)[],
): never {
  if (!(err instanceof GitError)) throw err;
  const given = revs.filter((v): v is string => v !== undefined);
  const category =
    err.reason === 'bad_ref' || (err.reason === 'failed' && given.length > 0)
      ? 'validation'
      : err.reason === 'timeout'
        ? 'transient'
        : err.reason === 'failed'
          ? 'internal'
          : err.reason === 'too_large'
            ? 'validation'
            : 'unavailable';
  // git's own words can name the repository's absolute path: say what failed in ours.
  const message =
    category === 'validation'
      ? `git cannot read ${given.map(quoteInput).join(' or ') || 'that revision'}: pass a commit, branch or tag of this repository (or a range a..b)`
      : err.reason === 'failed'
        ? 'git failed to list the changes; the hub log has its message'
        : err.message;
  if (err.reason === 'failed') ctx.logger.warn({ err }, 'git failed');
  throw new ToolError(category, `${tool}: ${message}`);
}
