import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { hasFts5, openDatabase, schemaVersion } from '../db/open.ts';
import { DB_FILE_NAME } from '../hub.ts';
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
