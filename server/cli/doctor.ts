import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { createBoardService } from '../board/service.ts';
import type { Config } from '../config.ts';
import { DB_FILE_NAME, hasFts5, openDatabase, schemaVersion } from '../db/open.ts';
import { EventBus } from '../events/bus.ts';
import {
  DOCTOR_CATEGORIES,
  diagnose,
  graphCounts,
  INFORMATIONAL_CATEGORIES,
} from '../graph/queries/doctor.ts';
import { ModuleState } from '../modules.ts';

interface Finding {
  ok: boolean;
  what: string;
  detail: string;
}

/** `cos doctor`: checks what the hub needs on this machine and in this repository. Exit 1 when anything fails. */
export function doctor(config: Config): number {
  const findings: Finding[] = [];
  try {
    mkdirSync(config.stateDir, { recursive: true });
    accessSync(config.stateDir, constants.W_OK);
    findings.push({ ok: true, what: 'state directory', detail: `${config.stateDir} is writable` });
  } catch (err) {
    findings.push({
      ok: false,
      what: 'state directory',
      detail: `${config.stateDir}: ${(err as Error).message}`,
    });
  }
  try {
    const db = openDatabase(join(config.stateDir, DB_FILE_NAME));
    const integrity = db.pragma('integrity_check', { simple: true });
    findings.push({
      ok: integrity === 'ok',
      what: 'database',
      detail: `schema ${schemaVersion(db)}, integrity ${String(integrity)}`,
    });
    findings.push({
      ok: hasFts5(db),
      what: 'FTS5',
      detail: hasFts5(db) ? 'available' : 'missing: search tools will answer unavailable',
    });
    db.close();
  } catch (err) {
    findings.push({ ok: false, what: 'database', detail: (err as Error).message });
  }
  findings.push(...taskFileFindings(config));
  findings.push(...graphFindings(config));
  const modules = ModuleState.forStateDir(config.stateDir);
  findings.push({
    ok: modules.loadError === undefined,
    what: 'modules',
    detail:
      modules.loadError ??
      modules
        .list()
        .map((m) => `${m.id}${m.enabled ? '' : ' (off)'}`)
        .join(', '),
  });
  for (const f of findings) console.log(`${f.ok ? 'ok  ' : 'FAIL'}  ${f.what.padEnd(16)} ${f.detail}`);
  return findings.every((f) => f.ok) ? 0 : 1;
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
      if (errors.length === 0)
        return [{ ok: true, what: 'task files', detail: `${total} indexed, every file parses${others}` }];
      return errors.map((e) => ({
        ok: false,
        what: 'task file',
        detail: `${e.path}: ${e.reason} (kept as it is; fix it by hand)`,
      }));
    } finally {
      db.close();
    }
  } catch (err) {
    return [{ ok: false, what: 'task files', detail: (err as Error).message }];
  }
}

/** The code graph's integrity (the checks cos_graph_doctor runs), when the graph has been indexed. */
function graphFindings(config: Config): Finding[] {
  try {
    const db = openDatabase(join(config.stateDir, DB_FILE_NAME));
    try {
      const counts = graphCounts(db);
      if (counts.files === 0)
        return [
          {
            ok: true,
            what: 'code graph',
            detail: 'not indexed yet (the hub indexes on start; or run cos index)',
          },
        ];
      const all = diagnose(db, config.repo, 5);
      const real = all.filter(
        (f) =>
          f.count > 0 &&
          DOCTOR_CATEGORIES.includes(f.category) &&
          !INFORMATIONAL_CATEGORIES.includes(f.category),
      );
      // Files that did not parse cleanly are reported, not failed: what parsed is in the graph.
      const parse = all.find((f) => f.category === 'files_with_parse_errors');
      const parseLines: Finding[] = parse?.count
        ? [
            {
              ok: true,
              what: 'code parse',
              detail: `${parse.count} file${parse.count === 1 ? '' : 's'} did not parse cleanly (first error): ${parse.sample.join('; ')}${parse.count > parse.sample.length ? `; and ${parse.count - parse.sample.length} more (cos_graph_doctor {"sample_size": 100})` : ''}`,
            },
          ]
        : [];
      if (real.length === 0) {
        return [
          {
            ok: true,
            what: 'code graph',
            detail: `${counts.files} files, ${counts.nodes} nodes, ${counts.edges} edges; healthy`,
          },
          ...parseLines,
        ];
      }
      return [
        ...real.map((f) => ({
          ok: false,
          what: 'code graph',
          detail: `${f.category}: ${f.count} (cos_graph_doctor with fix: true repairs the fixable ones)`,
        })),
        ...parseLines,
      ];
    } finally {
      db.close();
    }
  } catch (err) {
    return [{ ok: false, what: 'code graph', detail: (err as Error).message }];
  }
}
