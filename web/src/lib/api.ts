// The one API client. Every request the SPA makes goes through `api` (openapi-fetch over the generated
// `paths`), so a route that changes shape breaks `npm run typecheck` rather than the page.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api-types.ts';
import { PROJECT_BASE } from './project.ts';

/**
 * The page drawing itself is nobody's work: every read it makes (a GET: a page's first load, a reload on
 * a live event, a poll) carries `X-Cos-Background: 1`, so the hub neither records it as a tool call nor
 * counts it as use of a project. What the Activity page, the metrics and the problem counts show is then
 * the agents' calls (and any other client's), never this page watching them. Its writes (a move, a new
 * task, a setting) are the person's actions, recorded like any client's.
 */
const ownReads: Middleware = {
  onRequest({ request }) {
    if (request.method === 'GET') request.headers.set('x-cos-background', '1');
    return request;
  },
};

function client(baseUrl: string) {
  const c = createClient<paths>({ baseUrl });
  c.use(ownReads);
  return c;
}

const origin = globalThis.location?.origin ?? '';
// Same origin: the hub serves this page, and it refuses cross-origin calls anyway. Under `/p/<slug>/`
// every call goes to that project's routes.
export const api = client(`${origin}${PROJECT_BASE}`);
/** The hub's own routes, outside any project (GET /api/projects). */
export const hubApi = client(origin);
/** Another project's routes (`/p/<slug>/api/…`), for the pages that show every project at once. */
export const projectApi = (slug: string) => client(`${origin}/p/${encodeURIComponent(slug)}`);

export type ApiError = components['schemas']['ErrorBody'];
export type Meta = components['schemas']['Meta'];
export type ModuleId = components['schemas']['ModuleInfo']['id'];

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** What openapi-fetch resolves to: the 200 body, or one of the declared error bodies. */
interface FetchResult<T> {
  data?: T;
  error?: { error: ApiError };
  response: Response;
}

function unreachable(response: Response | undefined): ApiError {
  return {
    category: 'transient',
    retryable: true,
    message: response
      ? `the hub answered ${response.status} ${response.statusText} without an error body`
      : 'the hub did not answer; is it still running?',
  };
}

/**
 * Runs one request and folds every way it can fail (an error envelope, a network failure, a body that
 * is not JSON) into an Outcome, so pages handle one shape.
 */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<Outcome<T>> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    return { ok: false, error: unreachable(undefined) };
  }
  if (result.data !== undefined) return { ok: true, value: result.data };
  const body = result.error?.error;
  if (body && typeof body.message === 'string') return { ok: false, error: body };
  return { ok: false, error: unreachable(result.response) };
}

const MODULE_IDS = [
  'kernel',
  'tasks',
  'graph',
  'memory',
  'docs',
  'observability',
  'supervise',
] as const satisfies readonly ModuleId[];

export function isModuleId(text: string): text is ModuleId {
  return (MODULE_IDS as readonly string[]).includes(text);
}

/** The module a `module_disabled` message names (`… run \`cos module enable graph\` …`). */
export function moduleNamedIn(message: string): ModuleId | undefined {
  const match = /module enable ([a-z]+)/.exec(message) ?? /"([a-z]+)" module/.exec(message);
  const id = match?.[1];
  return id !== undefined && isModuleId(id) ? id : undefined;
}
