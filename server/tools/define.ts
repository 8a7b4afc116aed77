// One definition per tool. Its TypeBox input schema is the MCP inputSchema, the REST querystring/body and
// the OpenAPI parameters; its output schema is the `data` schema on every face. Handlers are plain
// functions of (ctx, input): they never see Fastify or the MCP SDK and never build envelopes.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Layer } from '../../shared/envelope/index.ts';
import type { ToolContext } from './context.ts';

export const MODULE_IDS = [
  'kernel',
  'tasks',
  'graph',
  'memory',
  'docs',
  'observability',
  'supervise',
] as const;
export type ModuleId = (typeof MODULE_IDS)[number];

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface HttpBinding {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify path, e.g. `/api/board/tasks/:id`; `:name` params are taken from the input's properties. */
  path: string;
  /** OpenAPI tag (the router); defaults to the second path segment (`board` for `/api/board/...`). */
  tag?: string;
  /** OpenAPI operationId; defaults to the tool name in camelCase without the `cos_` prefix. */
  operationId?: string;
}

export interface ToolDefinition<I extends TObject = TObject, O extends TSchema = TSchema> {
  name: `cos_${string}`;
  title: string;
  description: string;
  module: ModuleId;
  layer: Layer;
  input: I;
  /** Schema of `data` on success. A handler may add a `meta` object to an object result: it is merged into data.meta. */
  output: O;
  annotations?: ToolAnnotations;
  http?: HttpBinding;
  /** false for REST-only routes that feed the hub page (summaries, history); they stay off tools/list. */
  mcp?: boolean;
  handler: (ctx: ToolContext, input: Static<I>) => Static<O> | Promise<Static<O>>;
}

/** Identity at runtime; keeps the handler's input and output types tied to the schemas. */
export function defineTool<I extends TObject, O extends TSchema>(
  def: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return def;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools erases each tool's own types
export type AnyTool = ToolDefinition<any, any>;
