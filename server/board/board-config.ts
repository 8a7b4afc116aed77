// Board settings people change: WIP caps and the swimlanes the board shows even when empty. They live in
// `$COS_STATE_DIR/board.json` (not in the repo: caps are a team's working agreement for this hub) and are
// re-read when the file changes, so editing the caps needs no restart.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isStatus, type Status } from './model.ts';

export const DEFAULT_WIP_CAPS: Readonly<Partial<Record<Status, number>>> = {
  in_progress: 3,
  testing: 3,
  emergency: 2,
};

/** Quality gates (all off unless board.json turns them on). */
export interface GateSettings {
  /** Entering in_progress needs an Outcome and Acceptance criteria. */
  ready: boolean;
  /** Entering complete needs a Work Log entry since the claim. */
  done: boolean;
  /** Entering complete needs a commit linked to the task. */
  done_needs_commit: boolean;
}

export const GATES_OFF: GateSettings = { ready: false, done: false, done_needs_commit: false };

export interface BoardSettings {
  gates: GateSettings;
  /** Cap per column; a column without an entry has no cap. */
  wip: Partial<Record<Status, number>>;
  swimlanes: string[];
  /** Spending limits (issue 30): a task whose agents' tokens cost more than task_usd is flagged. */
  budget: BudgetSettings;
  /** Why board.json was ignored, when it was (defaults apply). */
  error: string | null;
  /** board.json relative to the state directory, for messages. */
  file: string;
}

export interface BudgetSettings {
  /** USD per task; null: no limit. */
  task_usd: number | null;
}

export const BOARD_CONFIG_FILE = 'board.json';

export function parseBoardSettings(text: string): Omit<BoardSettings, 'file'> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ...defaults(), error: `board.json is not valid JSON: ${(err as Error).message}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ...defaults(), error: 'board.json must be a JSON object like {"wip": {"in_progress": 3}}' };
  const obj = raw as Record<string, unknown>;
  const wip: Partial<Record<Status, number>> = { ...DEFAULT_WIP_CAPS };
  if (obj.wip !== undefined) {
    if (typeof obj.wip !== 'object' || obj.wip === null || Array.isArray(obj.wip))
      return { ...defaults(), error: 'board.json "wip" must map a status to a cap, e.g. {"in_progress": 3}' };
    for (const [status, cap] of Object.entries(obj.wip as Record<string, unknown>)) {
      if (!isStatus(status))
        return { ...defaults(), error: `board.json "wip" names "${status}", which is not a status` };
      if (cap === null) delete wip[status];
      else if (typeof cap === 'number' && Number.isInteger(cap) && cap >= 0) wip[status] = cap;
      else
        return {
          ...defaults(),
          error: `board.json "wip.${status}" must be a whole number ≥ 0 or null (no cap)`,
        };
    }
  }
  let swimlanes: string[] = [];
  if (obj.swimlanes !== undefined) {
    if (!Array.isArray(obj.swimlanes) || !obj.swimlanes.every((s) => typeof s === 'string'))
      return { ...defaults(), error: 'board.json "swimlanes" must be a list of names' };
    swimlanes = obj.swimlanes as string[];
  }
  const gates = { ...GATES_OFF };
  if (obj.gates !== undefined) {
    if (typeof obj.gates !== 'object' || obj.gates === null || Array.isArray(obj.gates))
      return {
        ...defaults(),
        error: 'board.json "gates" must be an object like {"ready": true, "done": true}',
      };
    for (const [name, on] of Object.entries(obj.gates as Record<string, unknown>)) {
      if (!(name in GATES_OFF))
        return {
          ...defaults(),
          error: `board.json "gates" names "${name}"; the gates are ready, done and done_needs_commit`,
        };
      if (typeof on !== 'boolean')
        return { ...defaults(), error: `board.json "gates.${name}" must be true or false` };
      gates[name as keyof GateSettings] = on;
    }
  }
  const budget: BudgetSettings = { task_usd: null };
  if (obj.budget !== undefined) {
    const b = obj.budget as Record<string, unknown> | null;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      return { ...defaults(), error: 'board.json "budget" must be an object like {"task_usd": 5}' };
    for (const [name, v] of Object.entries(b)) {
      if (name !== 'task_usd')
        return { ...defaults(), error: `board.json "budget" names "${name}"; the limit is task_usd` };
      if (v === null) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
        return { ...defaults(), error: 'board.json "budget.task_usd" must be a number of USD > 0, or null' };
      budget.task_usd = v;
    }
  }
  return { wip, swimlanes, gates, budget, error: null };
}

function defaults(): Omit<BoardSettings, 'file' | 'error'> {
  return { wip: { ...DEFAULT_WIP_CAPS }, swimlanes: [], gates: { ...GATES_OFF }, budget: { task_usd: null } };
}

/** Returns a getter that re-reads board.json only when its mtime or size changed. */
export function boardSettingsLoader(stateDir: string): () => BoardSettings {
  const path = join(stateDir, BOARD_CONFIG_FILE);
  let stamp = '';
  let cached: BoardSettings = { ...defaults(), error: null, file: BOARD_CONFIG_FILE };
  return () => {
    let next = 'missing';
    try {
      const st = statSync(path);
      next = `${st.mtimeMs}:${st.size}`;
    } catch {
      /* no board.json: defaults */
    }
    if (next === stamp) return cached;
    stamp = next;
    if (next === 'missing') cached = { ...defaults(), error: null, file: BOARD_CONFIG_FILE };
    else {
      try {
        cached = { ...parseBoardSettings(readFileSync(path, 'utf8')), file: BOARD_CONFIG_FILE };
      } catch (err) {
        cached = {
          ...defaults(),
          error: `board.json could not be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
          file: BOARD_CONFIG_FILE,
        };
      }
    }
    return cached;
  };
}
