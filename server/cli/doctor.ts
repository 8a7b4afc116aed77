import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { createBoardService } from '../board/service.ts';
import type { Config } from '../config.ts';
import { DAMAGED_ACTION, isDamagedCode } from '../db/damage.ts';
import { DB_FILE_NAME, hasFts5, openDatabase, schemaVersion } from '../db/open.ts';
import { EventBus } from '../events/bus.ts';
import {
  type DoctorCategory,
  doctorPass,
  FIXABLE_CATEGORIES,
  graphCounts,
  INFORMATIONAL_CATEGORIES,
} from '../graph/queries/doctor.ts';
import { type ModuleInfo, ModuleState } from '../modules.ts';
import { checkTeamDatabase } from '../team/check.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';
import { type HubAnswer, type HubTarget, hubRequest, unwrap } from './hub-client.ts';
import { findRunningHub, type RunningHub, tokenRefused } from './running-hub.ts';

export const DOCTOR_HELP = `usage: cos doctor [--fix]

Checks the state directory, the database (integrity, FTS5), the team database when COS_DATABASE_URL
is set (reachable, its schema, the team this clone joins), the task files (each one that does not
parse, with the reason), the code graph (the cos_graph_doctor checks) and the module settings; exits 1
when anything fails. While a hub serves the state directory, the checks read through that hub and
change nothing.
  --fix             repair what the graph doctor can repair (the fix of cos_graph_doctor: dangling
                    edges, stale paths, malformed uids, phantom nodes), then check again

${CONFIG_FLAGS_HELP}`;

interface Finding {
  ok: boolean;
  what: string;
  detail: string;
}

/** A graph finding as cos_graph_doctor reports it (REST) and as the local pass is turned into. */
interface GraphIssue {
  category: string;
  severity: 'real' | 'info';
  count: number;
  fixable: boolean;
  sample: string[];
}

interface GraphReport {
  issues: GraphIssue[];
  fixed: Partial<Record<string, number>> | null;
  stats: { nodes: number; edges: number; files: number };
}

/** `cos doctor [--fix]`: checks what the hub needs on this machine and in this repository. Exit 1 when anything fails. */
export async function doctor(config: Config, options: { fix?: boolean } = {}): Promise<number> {
  const fix = options.fix === true;
  const hub = await findRunningHub(config);
  const findings: Finding[] = [stateDirFinding(config, hub === undefined)];
  if (hub) {
    findings.push({
      ok: hub.authorised,
      what: 'hub',
      detail: hub.authorised
        ? `running at ${hub.url}/ (pid ${hub.pid}): the checks below read through it`
        : tokenRefused(hub),
    });
  }
  findings.push(...databaseFindings(config, hub !== undefined));
  const team = await checkTeamDatabase(config);
  if (team) findings.push({ ok: team.ok, what: 'team database', detail: team.detail });
  if (hub?.authorised) findings.push(...(await viaHub(hub, config, fix)));
  else if (!hub) {
    findings.push(...taskFileFindings(config));
    findings.push(...graphFindings(config, fix));
    findings.push(moduleFinding(localModules(config)));
  }
  for (const f of findings) console.log(`${f.ok ? 'ok  ' : 'FAIL'}  ${f.what.padEnd(16)} ${f.detail}`);
  return findings.every((f) => f.ok) ? 0 : 1;
}

function stateDirFinding(config: Config, mayCreate: boolean): Finding {
  try {
    if (mayCreate) mkdirSync(config.stateDir, { recursive: true });
    accessSync(config.stateDir, constants.W_OK);
    return { ok: true, what: 'state directory', detail: `${config.stateDir} is writable` };
  } catch (err) {
    return { ok: false, what: 'state directory', detail: `${config.stateDir}: ${(err as Error).message}` };
  }
}

/** Integrity and FTS5; read-only while a hub runs (its migrations are its own business). */
function databaseFindings(config: Config, readonly: boolean): Finding[] {
  const path = join(config.stateDir, DB_FILE_NAME);
  if (readonly && !existsSync(path))
    return [{ ok: false, what: 'database', detail: `${path} is missing while a hub runs` }];
  try {
    const db = openDatabase(path, { readonly });
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      const fts5 = hasFts5(db);
      return [
        {
          ok: integrity === 'ok',
          what: 'database',
          detail: `schema ${schemaVersion(db)}, integrity ${String(integrity).replace(/\s+/g, ' ')}${integrity === 'ok' ? '' : `: ${DAMAGED_REMEDY_NOW}`}`,
        },
        {
          ok: fts5,
          what: 'FTS5',
          detail: fts5 ? 'available' : 'missing: search tools will answer unavailable',
        },
      ];
    } finally {
      db.close();
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const remedy = isDamagedCode(code) ? ` (${String(code)}): ${DAMAGED_REMEDY_NOW}` : '';
    return [{ ok: false, what: 'database', detail: `${(err as Error).message}${remedy}` }];
  }
}

/** What to do about a damaged file, for a person who is running the doctor already. */
const DAMAGED_REMEDY_NOW = `stop the hub if it runs, then ${DAMAGED_ACTION}`;

function taskFinding(
  total: number,
  errors: { path: string; reason: string }[],
  count: number,
  others = '',
): Finding[] {
  if (count === 0)
    return [{ ok: true, what: 'task files', detail: `${total} indexed, every file parses${others}` }];
  const listed = errors.map((e) => ({
    ok: false,
    what: 'task file',
    detail: `${e.path}: ${e.reason} (kept as it is; fix it by hand)`,
  }));
  if (count > errors.length)
    listed.push({
      ok: false,
      what: 'task file',
      detail: `and ${count - errors.length} more that do not parse`,
    });
  return listed;
}

/** Reconciles the board index with the task files and reports each file that does not parse. */
function taskFileFindings(config: Config): Finding[] {
  try {
    const db = openDatabase(join(config.stateDir, DB_FILE_NAME));
    try {
      const board = createBoardService({
        config,
        db,
        events: new EventBus(),
        logger: pino({ level: 'silent' }),
        watch: false,
      });
      const report = board.reconcile('full');
      const errors = board.parseErrors();
      const total = board.store.counts({}).reduce((n, r) => n + r.n, 0);
      // A README beside the tasks is not a broken task: said, not failed.
      const others =
        report.not_tasks === 0
          ? ''
          : `; ${report.not_tasks} markdown file${report.not_tasks === 1 ? '' : 's'} without front matter or an id in the name ${report.not_tasks === 1 ? 'is' : 'are'} not a task`;
      return taskFinding(total, errors, errors.length, others);
    } finally {
      db.close();
    }
  } catch (err) {
    return [{ ok: false, what: 'task files', detail: (err as Error).message }];
  }
}

/** The local graph pass, in the shape cos_graph_doctor answers with. */
function graphFindings(config: Config, fix: boolean): Finding[] {
  try {
    const db = openDatabase(join(config.stateDir, DB_FILE_NAME));
    try {
      const stats = graphCounts(db);
      if (stats.files === 0 && !fix) return [graphNotIndexed];
      const { findings, fixed } = doctorPass(db, config.repo, { fix, sampleSize: 5 });
      const info = new Set<DoctorCategory>(INFORMATIONAL_CATEGORIES);
      const report: GraphReport = {
        issues: findings.map((f) => ({
          category: f.category,
          severity: info.has(f.category) ? 'info' : 'real',
          count: f.count,
          fixable: FIXABLE_CATEGORIES.includes(f.category),
          sample: f.sample,
        })),
        fixed,
        stats: graphCounts(db),
      };
      return graphReportFindings(report);
    } finally {
      db.close();
    }
  } catch (err) {
    return [{ ok: false, what: 'code graph', detail: (err as Error).message }];
  }
}

const graphNotIndexed: Finding = {
  ok: true,
  what: 'code graph',
  detail: 'not indexed yet (the hub indexes on start; or run cos index)',
};

function graphReportFindings(report: GraphReport): Finding[] {
  const out: Finding[] = [];
  if (report.fixed) {
    const repaired = Object.entries(report.fixed).filter(([, n]) => (n ?? 0) > 0);
    out.push({
      ok: true,
      what: 'code graph fix',
      detail:
        repaired.length > 0
          ? `repaired ${repaired.map(([c, n]) => `${c}: ${n}`).join(', ')}`
          : 'nothing to repair',
    });
  }
  if (report.stats.files === 0) return [...out, graphNotIndexed];
  const real = report.issues.filter((i) => i.severity === 'real' && i.count > 0);
  if (real.length === 0) {
    out.push({
      ok: true,
      what: 'code graph',
      detail: `${report.stats.files} files, ${report.stats.nodes} nodes, ${report.stats.edges} edges; healthy`,
    });
  }
  for (const i of real) {
    out.push({
      ok: false,
      what: 'code graph',
      detail: `${i.category}: ${i.count} (${i.fixable ? 'cos doctor --fix repairs it' : 'not repairable by the doctor: reindex with cos index --force'})`,
    });
  }
  // Files that did not parse cleanly are reported, not failed: what parsed is in the graph.
  const parse = report.issues.find((i) => i.category === 'files_with_parse_errors');
  if (parse?.count) {
    const more = parse.count - parse.sample.length;
    out.push({
      ok: true,
      what: 'code parse',
      detail: `${parse.count} file${parse.count === 1 ? '' : 's'} did not parse cleanly (first error): ${parse.sample.join('; ')}${more > 0 ? `; and ${more} more (cos_graph_doctor {"sample_size": 100})` : ''}`,
    });
  }
  return out;
}

function localModules(config: Config): { modules: ModuleInfo[]; problem?: string } {
  const state = ModuleState.forStateDir(config.stateDir);
  return { modules: state.list(), ...(state.loadError ? { problem: state.loadError } : {}) };
}

function moduleFinding(m: { modules: ModuleInfo[]; problem?: string }): Finding {
  return {
    ok: m.problem === undefined,
    what: 'modules',
    detail: m.problem ?? m.modules.map((x) => `${x.id}${x.enabled ? '' : ' (off)'}`).join(', '),
  };
}

/** A module the running hub has switched off answers module_disabled: a fact, not a failure. */
function moduleOff(answer: HubAnswer): boolean {
  return (
    (answer.body as { error?: { category?: string } } | undefined)?.error?.category === 'module_disabled'
  );
}

/** The task files, the graph and the modules as the running hub sees them; --fix through its graph doctor. */
async function viaHub(hub: RunningHub, config: Config, fix: boolean): Promise<Finding[]> {
  const target: HubTarget = { url: hub.url, token: config.token };
  const out: Finding[] = [];
  try {
    const board = await hubRequest(target, 'GET', '/api/board/list?limit=1&include_archive=true');
    if (moduleOff(board)) out.push({ ok: true, what: 'task files', detail: 'tasks module off' });
    else {
      const data = unwrap<{ total: number }>(board, 'the board');
      const meta = (
        board.body as {
          meta?: { parse_errors?: { path: string; reason: string }[]; parse_error_count?: number };
        }
      ).meta;
      out.push(...taskFinding(data.total, meta?.parse_errors ?? [], meta?.parse_error_count ?? 0));
    }
  } catch (err) {
    out.push({ ok: false, what: 'task files', detail: (err as Error).message });
  }
  try {
    const graph = await hubRequest(target, 'POST', '/api/graph/doctor', { fix, sample_size: 5 });
    if (moduleOff(graph)) out.push({ ok: true, what: 'code graph', detail: 'graph module off' });
    else out.push(...graphReportFindings(unwrap<GraphReport>(graph, 'the graph doctor')));
  } catch (err) {
    out.push({ ok: false, what: 'code graph', detail: (err as Error).message });
  }
  try {
    out.push(
      moduleFinding(
        unwrap<{ modules: ModuleInfo[]; problem?: string }>(
          await hubRequest(target, 'GET', '/api/settings/modules'),
          'the modules',
        ),
      ),
    );
  } catch (err) {
    out.push({ ok: false, what: 'modules', detail: (err as Error).message });
  }
  return out;
}
