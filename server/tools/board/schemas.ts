// Schemas shared by the board tools: one definition of a task id, a card, a task, so every tool's MCP
// inputSchema, REST parameters and OpenAPI agree with the domain's vocabulary (server/board/model.ts).
import { type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { budgetSize } from '../../../shared/envelope/index.ts';
import type { Actor } from '../../board/model.ts';
import { APPETITE_PATTERN, KINDS, PRIORITIES, STATUSES } from '../../board/model.ts';
import type { BoardService } from '../../board/service.ts';
import { ToolError } from '../../errors.ts';
import type { ToolContext } from '../context.ts';

/** A closed set of strings as a union of literals: the input compiler checks it and JSON Schema lists it. */
export const stringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description === undefined ? {} : { description },
  ) as unknown as TUnion<TLiteral<T>[]>;

export const StatusSchema = stringEnum(STATUSES);
export const KindSchema = stringEnum(KINDS);
export const PrioritySchema = stringEnum(PRIORITIES, 'P0 urgent … P3 when there is time');

export const TaskIdSchema = Type.String({
  // Zero-padded ids (TASK-046) are ids too; TASK-46 and 46 name the same task. No description: the
  // pattern says it, and every tool with an id repeats this schema in tools/list (its byte budget).
  pattern: '^(?:[Tt][Aa][Ss][Kk]-)?0*[1-9][0-9]{0,8}$',
  maxLength: 24,
});
export const ExpectedVersionSchema = Type.Integer({
  minimum: 1,
});
export const AgentSessionSchema = Type.String({
  minLength: 1,
  maxLength: 200,
});
export const ReasonSchema = Type.String({
  minLength: 1,
  maxLength: 2000,
});
export const BypassWipSchema = Type.Boolean({});
export const LabelListSchema = () =>
  Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 50 });
export const TaskIdListSchema = () => Type.Array(TaskIdSchema, { maxItems: 100 });
export const TextListSchema = () =>
  Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 100 });
export const SectionTextSchema = () => Type.String({ maxLength: 20_000 });
export const AppetiteSchema = Type.String({
  pattern: APPETITE_PATTERN,
  maxLength: 8,
  description: '30m, 2h, 1d, 1w or 1cy',
});
export const LimitSchema = (def: number, description?: string) =>
  Type.Integer({ minimum: 1, maximum: 500, default: def, ...(description ? { description } : {}) });
export const OffsetSchema = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
});

const opt = <T extends TSchema>(s: T) => Type.Optional(s);

/** Only in a team (COS_DATABASE_URL): whose record the board shows. */
const MachineSchema = Type.String({
  description: 'The machine that holds the task or moved it last (only when the hub is in a team)',
});

export const CardSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  status: StatusSchema,
  kind: KindSchema,
  priority: PrioritySchema,
  appetite: opt(Type.String()),
  swimlane: opt(Type.String()),
  epic: opt(Type.String()),
  labels: Type.Array(Type.String()),
  agent_session: opt(Type.String()),
  depends_on: opt(Type.Array(Type.String())),
  version: Type.Integer(),
  machine: opt(MachineSchema),
});

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

export const TaskViewSchema = Type.Object({
  id: Type.String({ description: 'The task id as its file writes it, e.g. TASK-12 or TASK-046' }),
  title: Type.String(),
  status: StatusSchema,
  kind: KindSchema,
  priority: PrioritySchema,
  appetite: opt(Type.String()),
  swimlane: opt(Type.String()),
  epic: opt(Type.String()),
  labels: Type.Array(Type.String()),
  agent_session: opt(Type.String()),
  version: Type.Integer({ description: 'Pass as expected_version on your next write' }),
  machine: opt(MachineSchema),
  created: Nullable(Type.String()),
  started: Nullable(Type.String()),
  completed: Nullable(Type.String()),
  depends_on: Type.Array(Type.String()),
  blocked_by: Type.Array(Type.String()),
  references: Type.Array(Type.String()),
  sections: Type.Object({
    outcome: Type.String(),
    read_first: Type.String(),
    acceptance: Type.String(),
    work_log: Type.String(),
  }),
  path: Type.String({ description: 'Repo-relative path of the task file' }),
  unknown_keys: Type.Array(Type.String(), {
    description: 'Front-matter keys the hub keeps but does not interpret',
  }),
  unknown_sections: Type.Array(Type.String(), {
    description: 'Body sections the hub keeps but does not interpret',
  }),
});

export const TaskChangeSchema = Type.Object({
  task: TaskViewSchema,
  old_status: Nullable(StatusSchema),
  new_status: StatusSchema,
  changed: Type.Array(Type.String(), {
    description: 'Fields that changed (empty: nothing to do, no new version)',
  }),
  wip_bypassed: Type.Boolean(),
});

export const WipColumnSchema = Type.Object({
  status: StatusSchema,
  count: Type.Integer(),
  cap: Type.Integer(),
  at_cap: Type.Boolean(),
  over_cap: Type.Boolean(),
  task_ids: Type.Array(Type.String()),
});

/** The board service, or `unavailable` when the hub runs without the tasks module wired in. */
export function boardOf(ctx: ToolContext): BoardService {
  const board = (ctx.services as { board?: BoardService }).board;
  if (board === undefined)
    throw new ToolError(
      'unavailable',
      'the task board is not running in this hub; start it with `cos serve` in the repository',
    );
  return board;
}

/** Who is acting: the agent session the caller named and the face the call came through. */
export function actorOf(ctx: ToolContext, agentSession: string | undefined): Actor {
  return { agentSession, source: ctx.caller.transport === 'mcp' ? 'mcp' : 'api' };
}

/** The agent budget (32,000) less room for the envelope's own keys and meta. */
export const LIST_BUDGET_CHARS = 28_000;

/**
 * How many of `items` fit the agent budget next to `rest` (the answer without the list). The list tools
 * cut their own lists this way, before the envelope's generic trimmer would, so the offset or cursor
 * they return still points at the first item not shown. REST callers are not budgeted.
 */
export function itemsWithinBudget(ctx: ToolContext, items: readonly unknown[], rest: unknown): number {
  if (ctx.caller.transport === 'rest') return items.length;
  let used = budgetSize(JSON.stringify(rest));
  for (let i = 0; i < items.length; i++) {
    used += budgetSize(JSON.stringify(items[i])) + 1;
    // Always keep the first item: an answer that shows nothing cannot be paged past.
    if (used > LIST_BUDGET_CHARS && i > 0) return i;
  }
  return items.length;
}
