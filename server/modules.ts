// Module switches: $COS_STATE_DIR/subsystems-state.json holds { version, disabled: [] }. A missing file
// means everything is enabled; a corrupt one is reported (log and cos_health) and also means everything
// is enabled, because refusing to start over a settings file would take every agent's tools away.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MODULE_IDS, type ModuleId } from './tools/define.ts';

export const MODULES_FILE_NAME = 'subsystems-state.json';
const FILE_VERSION = 1;

export const MODULE_DESCRIPTIONS: Record<ModuleId, string> = {
  kernel: 'health, settings and the hub itself; cannot be disabled',
  tasks: 'the task board: task files, their index and the board tools',
  graph: 'the code knowledge graph: indexer and graph tools',
  memory: 'observations agents record and search',
  docs: "search over the repository's documentation",
  observability: 'tool-call metrics, logs, sessions and presence',
  supervise: 'supervision evidence bundles',
};

export interface ModuleInfo {
  id: ModuleId;
  enabled: boolean;
  description: string;
}

export function isModuleId(id: string): id is ModuleId {
  return (MODULE_IDS as readonly string[]).includes(id);
}

export class ModuleState {
  private disabled = new Set<ModuleId>();
  /** Why the file could not be read, when it could not; surfaced by cos_health. */
  loadError: string | undefined;
  private readonly listeners = new Set<(id: ModuleId, enabled: boolean) => void>();

  constructor(private readonly file: string) {
    this.reload();
  }

  static forStateDir(stateDir: string): ModuleState {
    return new ModuleState(join(stateDir, MODULES_FILE_NAME));
  }

  reload(): void {
    this.loadError = undefined;
    this.disabled = new Set();
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.loadError = `cannot read ${MODULES_FILE_NAME}: ${(err as Error).message}`;
      return;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      const list = (parsed as { disabled?: unknown }).disabled;
      if (!Array.isArray(list)) throw new Error('"disabled" must be a list of module ids');
      for (const id of list) {
        if (typeof id !== 'string' || !isModuleId(id))
          throw new Error(`unknown module id ${JSON.stringify(id)}`);
        if (id !== 'kernel') this.disabled.add(id);
      }
    } catch (err) {
      this.disabled = new Set();
      this.loadError = `${MODULES_FILE_NAME} is not valid (${(err as Error).message}); every module stays enabled until it is fixed or rewritten by \`cos module enable|disable\``;
    }
  }

  isEnabled(id: ModuleId): boolean {
    return !this.disabled.has(id);
  }

  list(): ModuleInfo[] {
    return MODULE_IDS.map((id) => ({
      id,
      enabled: this.isEnabled(id),
      description: MODULE_DESCRIPTIONS[id],
    }));
  }

  /** Persists the change atomically (temp file + rename) before applying it. Returns whether anything changed. */
  set(id: ModuleId, enabled: boolean): boolean {
    if (id === 'kernel' && !enabled) throw new Error('the kernel module cannot be disabled');
    if (this.isEnabled(id) === enabled) return false;
    const next = new Set(this.disabled);
    if (enabled) next.delete(id);
    else next.add(id);
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: FILE_VERSION, disabled: [...next].sort() }, null, 2)}\n`);
    renameSync(tmp, this.file);
    this.disabled = next;
    this.loadError = undefined;
    for (const listener of this.listeners) listener(id, enabled);
    return true;
  }

  onChange(listener: (id: ModuleId, enabled: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
