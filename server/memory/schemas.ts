// Shapes of memory records as every face shows them (MCP, REST, OpenAPI): one definition, used by the
// service's types and by the tools' output schemas.
import { type Static, Type } from '@sinclair/typebox';
import '../tools/formats.ts';
import { IMPACTS, MEMORY_TYPES } from './port.ts';

/** The type names alone, where cos_observation_record's description of them already reached the agent. */
export const MemoryTypeNameSchema = Type.Union(MEMORY_TYPES.map((t) => Type.Literal(t)));

export const MemoryTypeSchema = Type.Union(
  MEMORY_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'pattern: what works here; decision: a choice and why; pitfall: what went wrong, how to avoid it; ' +
      'fact: verified about the code or setup; preference: how the team wants it',
  },
);

export const ImpactSchema = Type.Union(
  IMPACTS.map((t) => Type.Literal(t)),
  {},
);

/** Which machine's hub recorded it: present with a team (COS_DATABASE_URL), absent on a hub alone. */
const MachineSchema = Type.Optional(
  Type.String({ description: 'The machine whose hub recorded it (COS_MACHINE); present with a team' }),
);

/** Session ids name files and rows: a safe charset, no path separators. */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$';

export const ObservationSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  narrative: Type.String(),
  facts: Type.Array(Type.String()),
  concepts: Type.Array(Type.String()),
  type: MemoryTypeSchema,
  confidence: Type.Number(),
  impact: ImpactSchema,
  files: Type.Array(Type.String()),
  task_id: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.String({ description: 'The agent session that recorded it; empty when unknown' }),
  created_at: Type.String({ format: 'date-time' }),
  last_accessed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  access_count: Type.Integer({ description: 'Reads through cos_details' }),
  merged_count: Type.Integer({ description: 'Exact duplicates folded into this record' }),
  machine: MachineSchema,
});
export type Observation = Static<typeof ObservationSchema>;

export const ScorePartsSchema = Type.Object(
  {
    relevance: Type.Number(),
    confidence: Type.Number(),
    recency: Type.Number(),
    impact: Type.Number(),
    access: Type.Number(),
  },
  { description: 'Each factor in [0, 1] before weighting (weights: server/memory/README.md)' },
);

export const MemoryHitSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  type: MemoryTypeSchema,
  confidence: Type.Number(),
  impact: ImpactSchema,
  concepts: Type.Array(Type.String()),
  task_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  snippet: Type.String({ description: 'Text around the first match, matches wrapped in **' }),
  score: Type.Number({ description: 'Blended score in [0, 1], higher is better' }),
  score_parts: ScorePartsSchema,
  machine: MachineSchema,
});
export type MemoryHit = Static<typeof MemoryHitSchema>;

export const TimelineEntrySchema = Type.Object({
  id: Type.Integer(),
  day: Type.String({ description: 'UTC date, YYYY-MM-DD' }),
  title: Type.String(),
  type: MemoryTypeSchema,
  confidence: Type.Number(),
  impact: ImpactSchema,
  task_id: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  machine: MachineSchema,
});
export type TimelineEntry = Static<typeof TimelineEntrySchema>;

export const ForgetEntrySchema = Type.Object({
  audit_id: Type.Integer(),
  observation_id: Type.Integer(),
  type: Type.String(),
  content_hash: Type.String(),
  session_id: Type.String(),
  reason: Type.String(),
  forgotten_by: Type.String(),
  forgotten_at: Type.String({ format: 'date-time' }),
  machine: Type.Optional(
    Type.String({ description: 'The machine whose hub forgot it; present with a team' }),
  ),
});
export type ForgetEntry = Static<typeof ForgetEntrySchema>;
