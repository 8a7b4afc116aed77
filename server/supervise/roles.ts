// The roles a supervised run can have and what each must hand back. Built-in roles have TypeBox schemas;
// roles registered in `$COS_STATE_DIR/roles.json` name the fields they require on top of a summary:
//
//   { "roles": [ { "id": "security-auditor", "description": "Threat review", "required": ["threats"] } ] }
//
// An output that does not fit answers `validation` naming the first field at fault.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import { ToolError } from '../errors.ts';

const Text = (description: string, maxLength = 20_000) =>
  Type.String({ minLength: 1, maxLength, description });
const List = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 200, description });
const Summary = Text('What this role concluded, in a few sentences', 10_000);

// Outputs may carry extra fields (agents add context); only the named ones are checked.
export const ROLE_SCHEMAS = {
  researcher: Type.Object({
    summary: Summary,
    findings: List('What was found'),
    sources: Type.Array(
      Type.Object({
        ref: Text('File path, URL or doc reference', 2000),
        note: Type.Optional(Text('Why it matters', 2000)),
      }),
      { maxItems: 200, description: 'Where the findings come from' },
    ),
    open_questions: Type.Optional(List('What remains unknown')),
  }),
  analyst: Type.Object({
    summary: Summary,
    findings: List('Conclusions drawn from the research'),
    risks: Type.Optional(List('What could go wrong')),
    recommendation: Type.Optional(Text('What to do next', 5000)),
  }),
  architect: Type.Object({
    summary: Summary,
    decisions: Type.Array(
      Type.Object({
        title: Text('The decision', 500),
        rationale: Text('Why', 5000),
        alternatives: Type.Optional(List('What was considered instead')),
      }),
      { minItems: 1, maxItems: 100, description: 'Design decisions and their reasons' },
    ),
    components: Type.Optional(List('Parts touched or introduced')),
  }),
  implementer: Type.Object({
    summary: Summary,
    files_changed: List('Repository-relative paths changed'),
    commits: Type.Optional(List('Commit ids')),
    tests_added: Type.Optional(List('Tests written or changed')),
  }),
  reviewer: Type.Object({
    summary: Summary,
    verdict: Type.Union([Type.Literal('approve'), Type.Literal('request_changes'), Type.Literal('comment')]),
    issues: Type.Array(
      Type.Object({
        severity: Type.Union([
          Type.Literal('blocker'),
          Type.Literal('major'),
          Type.Literal('minor'),
          Type.Literal('nit'),
        ]),
        message: Text('What is wrong and what to do', 5000),
        file: Type.Optional(Text('Repository-relative path', 1000)),
        line: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
      { maxItems: 500 },
    ),
  }),
  tester: Type.Object({
    summary: Summary,
    passed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    skipped: Type.Optional(Type.Integer({ minimum: 0 })),
    command: Type.Optional(Text('How the tests were run', 2000)),
    failures: Type.Optional(
      Type.Array(Type.Object({ name: Text('Test name', 1000), message: Text('Why it failed', 5000) }), {
        maxItems: 500,
      }),
    ),
  }),
} satisfies Record<string, TObject>;

export const BUILTIN_ROLES = Object.keys(ROLE_SCHEMAS) as (keyof typeof ROLE_SCHEMAS)[];

const DESCRIPTIONS: Record<keyof typeof ROLE_SCHEMAS, string> = {
  researcher: 'Gathers facts and sources',
  analyst: 'Draws conclusions and risks from the research',
  architect: 'Makes and records design decisions',
  implementer: 'Changes the code',
  reviewer: 'Reviews the change and gives a verdict',
  tester: 'Runs the tests and reports results',
};

export const ROLE_ID_PATTERN = '^[a-z][a-z0-9_-]{0,39}$';
const ROLE_ID = new RegExp(ROLE_ID_PATTERN);

export interface RoleInfo {
  id: string;
  builtin: boolean;
  description: string;
  /** JSON Schema of the output this role must record. */
  output_schema: unknown;
}

const RolesFileSchema = Type.Object({
  roles: Type.Array(
    Type.Object({
      id: Type.String({ pattern: ROLE_ID_PATTERN }),
      description: Type.Optional(Type.String({ maxLength: 500 })),
      required: Type.Optional(
        Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }), { maxItems: 50 }),
      ),
    }),
    { maxItems: 100 },
  ),
});

interface Role {
  info: RoleInfo;
  schema: TObject;
}

/** A registered role's output: a summary, plus whatever fields roles.json requires (any value). */
function registeredSchema(required: string[]): TObject {
  const props: Record<string, ReturnType<typeof Type.Unknown> | typeof Summary> = { summary: Summary };
  for (const field of required)
    if (field !== 'summary') props[field] = Type.Unknown({ description: 'Required by roles.json' });
  return Type.Object(props);
}

const builtins: Role[] = BUILTIN_ROLES.map((id) => ({
  info: { id, builtin: true, description: DESCRIPTIONS[id], output_schema: ROLE_SCHEMAS[id] },
  schema: ROLE_SCHEMAS[id],
}));

/**
 * Roles from the built-ins plus `roles.json`, re-read when the file's mtime changes so an edit needs no
 * restart. A broken roles.json is logged and ignored (built-ins keep working).
 */
export function createRoleRegistry(stateDir: string, logger?: Logger) {
  const file = join(stateDir, 'roles.json');
  let cachedMtime = -1;
  let roles = new Map<string, Role>(builtins.map((r) => [r.info.id, r]));

  function load(): Map<string, Role> {
    let mtime = 0;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime === cachedMtime) return roles;
    cachedMtime = mtime;
    const next = new Map<string, Role>(builtins.map((r) => [r.info.id, r]));
    if (mtime !== 0) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        if (!Value.Check(RolesFileSchema, parsed)) {
          const first = [...Value.Errors(RolesFileSchema, parsed)][0];
          throw new Error(`roles.json ${first?.path ?? ''}: ${first?.message ?? 'invalid'}`);
        }
        for (const r of parsed.roles) {
          if (next.has(r.id)) continue; // a built-in keeps its own schema
          const schema = registeredSchema(r.required ?? []);
          next.set(r.id, {
            info: { id: r.id, builtin: false, description: r.description ?? '', output_schema: schema },
            schema,
          });
        }
      } catch (err) {
        logger?.warn({ err }, 'roles.json ignored: fix it to register roles');
      }
    }
    roles = next;
    return roles;
  }

  return {
    list: (): RoleInfo[] => [...load().values()].map((r) => r.info),
    ids: (): string[] => [...load().keys()],
    has: (id: string) => load().has(id),
    /** Throws `validation` for an unknown role or an output that does not fit the role's schema. */
    check(role: string, output: unknown): void {
      const r = ROLE_ID.test(role) ? load().get(role) : undefined;
      if (!r) {
        throw new ToolError(
          'validation',
          `unknown role "${role}": use one of ${[...load().keys()].join(', ')}, or register it in roles.json in the hub's state directory`,
        );
      }
      if (Value.Check(r.schema, output)) return;
      const first = [...Value.Errors(r.schema, output)][0];
      const field = first?.path ? first.path.replace(/^\//, '').replaceAll('/', '.') : '';
      throw new ToolError(
        'validation',
        field === ''
          ? `output for role ${role} must be an object with a summary: ${first?.message ?? 'wrong shape'}`
          : `output.${field} for role ${role}: ${first?.message ?? 'wrong value'} (see GET /api/roles for the schema)`,
      );
    },
  };
}

export type RoleRegistry = ReturnType<typeof createRoleRegistry>;
export type ResearcherOutput = Static<(typeof ROLE_SCHEMAS)['researcher']>;
