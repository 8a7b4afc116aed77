// The project's hook settings, in $COS_STATE_DIR/hooks.json: what to do about edit conflicts, whether
// prompt text is kept, and how long silence lasts before an agent counts as gone or its claim as free.
// A missing file means the defaults; a file that does not parse is reported and also means the
// defaults, because refusing to answer hooks would slow every agent down.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const HOOK_SETTINGS_FILE = 'hooks.json';

export const ConflictModeSchema = Type.Union(
  [Type.Literal('off'), Type.Literal('warn'), Type.Literal('block')],
  {
    description:
      'what a PreToolUse edit of a file another live agent holds gets: nothing, a warning, or a refusal',
  },
);

const minutes = (description: string, max: number) => Type.Integer({ minimum: 1, maximum: max, description });

export const HookSettingsSchema = Type.Object(
  {
    conflicts: ConflictModeSchema,
    store_prompts: Type.Boolean({
      description: 'keep prompt text (redacted); otherwise only its length and SHA-256 are kept',
    }),
    agent_timeout_minutes: minutes('silence after which a hook agent counts as gone', 24 * 60),
    claim_grace_minutes: minutes(
      'silence after which a task claimed by that agent can be reclaimed',
      7 * 24 * 60,
    ),
    conflict_window_minutes: minutes(
      'how recent another agent’s edit must be to count as a conflict',
      24 * 60,
    ),
    map: Type.Boolean({
      description:
        'offer the repository map (communities, most depended-on symbols; about 1,000 tokens) at SessionStart',
    }),
  },
  { additionalProperties: false },
);
export type HookSettings = Static<typeof HookSettingsSchema>;
export type ConflictMode = HookSettings['conflicts'];

export const DEFAULT_HOOK_SETTINGS: HookSettings = {
  conflicts: 'warn',
  store_prompts: false,
  agent_timeout_minutes: 30,
  claim_grace_minutes: 30,
  conflict_window_minutes: 15,
  map: true,
};

export const HookSettingsPatchSchema = Type.Partial(HookSettingsSchema, { additionalProperties: false });

export class HookSettingsStore {
  private current: HookSettings = { ...DEFAULT_HOOK_SETTINGS };
  loadError: string | undefined;
  private readonly file: string;

  constructor(stateDir: string) {
    this.file = join(stateDir, HOOK_SETTINGS_FILE);
    this.reload();
  }

  reload(): void {
    this.loadError = undefined;
    this.current = { ...DEFAULT_HOOK_SETTINGS };
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.loadError = `cannot read ${HOOK_SETTINGS_FILE}: ${(err as Error).message}`;
      return;
    }
    try {
      const merged = { ...DEFAULT_HOOK_SETTINGS, ...(JSON.parse(text) as object) };
      if (!Value.Check(HookSettingsSchema, merged)) {
        const first = [...Value.Errors(HookSettingsSchema, merged)][0];
        throw new Error(first ? `${first.path || '/'} ${first.message}` : 'not a settings object');
      }
      this.current = merged;
    } catch (err) {
      this.loadError = `${HOOK_SETTINGS_FILE} is not valid (${(err as Error).message}); the defaults apply until it is fixed or saved from the Settings page`;
    }
  }

  get(): HookSettings {
    return this.current;
  }

  /** Applies a validated patch and writes the file (temp + rename, so a crash never leaves half of it). */
  update(patch: Partial<HookSettings>): HookSettings {
    const next = { ...this.current, ...patch };
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
    renameSync(tmp, this.file);
    this.current = next;
    this.loadError = undefined;
    return next;
  }
}
