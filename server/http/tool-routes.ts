// REST face of the registry: every tool with an `http` binding becomes a route that calls
// runTool(…, { applyBudget: false }) and unwraps the envelope. Routes are grouped by router (OpenAPI
// tag); each router declares the error responses once and every route in it inherits them.
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Hub } from '../hub.ts';
import { projectOfRequest } from '../projects/hubs.ts';
import type { AnyTool } from '../tools/define.ts';
import { ERROR_RESPONSES, okResponseSchema } from './schemas.ts';
import { paramsFromText } from './text-values.ts';
import { RETRY_AFTER_SECONDS, unwrap } from './unwrap.ts';

export function routerOf(tool: AnyTool): string {
  return tool.http?.tag ?? tool.http?.path.split('/')[2] ?? 'hub';
}

export function operationIdOf(tool: AnyTool): string {
  return (
    tool.http?.operationId ??
    tool.name.replace(/^cos_/, '').replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
  );
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

/** The parts of a tool's input schema that travel as path params, and the rest (query or body). */
export function splitInput(tool: AnyTool): { params: TObject | undefined; rest: TObject } {
  const names = pathParams(tool.http!.path);
  for (const n of names) {
    if (!(n in tool.input.properties))
      throw new Error(`${tool.name}: path param :${n} is not an input property`);
  }
  if (names.length === 0) return { params: undefined, rest: tool.input };
  const props = tool.input.properties;
  const pick = (keep: (name: string) => boolean): TProperties =>
    Object.fromEntries(Object.entries(props).filter(([name]) => keep(name))) as TProperties;
  const restProps = pick((n) => !names.includes(n));
  return {
    params: Type.Object(
      pick((n) => names.includes(n)),
      { additionalProperties: false },
    ),
    rest: Type.Object(restProps, { additionalProperties: tool.input.additionalProperties }),
  };
}

const usesQuery = (method: string) => method === 'GET' || method === 'DELETE';

const REST_CALLER = { transport: 'rest' } as const;
const BACKGROUND_CALLER = { transport: 'rest', background: true } as const;
/**
 * Sent (`1`) by the hub's web page on every read it makes (web/src/lib/api.ts): the page drawing itself
 * is nobody's work, so not recorded and not counted as use of a project.
 */
export const BACKGROUND_HEADER = 'x-cos-background';

/** A read of the hub's own page (CallerInfo.background); only a GET can be one. */
function isBackground(request: FastifyRequest): boolean {
  return request.method === 'GET' && request.headers[BACKGROUND_HEADER] === '1';
}

function inputOf(
  request: FastifyRequest,
  tool: AnyTool,
  rest: TObject,
  params: TObject | undefined,
): unknown {
  const pathValues = params ? paramsFromText(params, request.params as object) : {};
  if (usesQuery(tool.http!.method)) {
    // Query strings are text: "5" is 5 and "true" is true where the schema says so, and nothing else.
    return { ...paramsFromText(rest, request.query as object), ...pathValues };
  }
  const body = request.body ?? {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...body, ...pathValues };
}

function abortSignalOf(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once('close', () => {
    if (!request.raw.complete || request.raw.destroyed) controller.abort();
  });
  return controller.signal;
}

// Schemas are for OpenAPI and documentation; runTool validates, so Fastify must neither reject
// (its messages differ from ours) nor strip or coerce anything on the way in, nor drop unknown keys
// on the way out (fast-json-stringify would remove meta keys it was not told about).
const passThroughValidator = () => () => true;
const plainSerializer = () => (data: unknown) => JSON.stringify(data);

export function toolRoute(hub: Hub, tool: AnyTool): RouteOptions {
  const http = tool.http!;
  const { params, rest } = splitInput(tool);
  const hasBody = !usesQuery(http.method) && Object.keys(rest.properties).length > 0;
  const schema: Record<string, unknown> = {
    operationId: operationIdOf(tool),
    tags: [routerOf(tool)],
    summary: tool.title,
    description: tool.description,
    response: { 200: okResponseSchema(tool.output as TSchema) },
  };
  if (params) schema.params = params;
  if (usesQuery(http.method)) {
    if (Object.keys(rest.properties).length > 0) schema.querystring = rest;
  } else if (hasBody) {
    schema.body = rest;
  }
  return {
    method: http.method,
    url: http.path,
    schema,
    validatorCompiler: passThroughValidator,
    serializerCompiler: plainSerializer,
    handler: async (request, reply) => {
      let status = 200;
      // The project the request came for (`/p/<slug>/api/…`), else the default.
      const target = projectOfRequest(request.raw)?.hub ?? hub;
      const { text } = await target.call(tool, inputOf(request, tool, rest, params), {
        caller: isBackground(request) ? BACKGROUND_CALLER : REST_CALLER,
        applyBudget: false,
        signal: abortSignalOf(request),
        serialise: (envelope) => {
          const unwrapped = unwrap(envelope);
          status = unwrapped.status;
          return JSON.stringify(unwrapped.body);
        },
      });
      if (status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.code(status).type('application/json; charset=utf-8').send(text);
    },
  };
}

/** Registers one Fastify plugin per router; error responses are declared once per router. */
export async function registerToolRoutes(app: FastifyInstance, hub: Hub): Promise<void> {
  const byRouter = new Map<string, AnyTool[]>();
  for (const tool of hub.registry.all()) {
    if (!tool.http) continue;
    const router = routerOf(tool);
    byRouter.set(router, [...(byRouter.get(router) ?? []), tool]);
  }
  for (const [, tools] of [...byRouter].sort(([a], [b]) => a.localeCompare(b))) {
    await app.register(async (router) => {
      router.addHook('onRoute', (route) => {
        route.schema = route.schema ?? {};
        const schema = route.schema as { response?: Record<string, unknown> };
        schema.response = { ...ERROR_RESPONSES, ...(schema.response ?? {}) };
      });
      for (const tool of tools) router.route(toolRoute(hub, tool));
    });
  }
}
