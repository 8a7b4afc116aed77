// buildApp(hub): the Fastify app serving MCP at /mcp, REST at /api/*, OpenAPI at /openapi.json, Swagger
// UI at /docs and the SPA at /. Plugins are registered in a fixed order; the app never listens.
import { existsSync } from 'node:fs';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { newErrorId } from './errors.ts';
import { serverOptions } from './http/connection.ts';
import { sendError } from './http/error-reply.ts';
import { registerHookRoutes } from './http/hooks.ts';
import { LoginSessions, registerLogin } from './http/login.ts';
import { registerMetrics } from './http/metrics.ts';
import { RateLimiter, registerRateLimit } from './http/rate-limit.ts';
import { addSharedSchemas } from './http/schemas.ts';
import { markPublic, normalisedPath, registerSecurity } from './http/security.ts';
import { registerStream } from './http/stream.ts';
import { registerToolRoutes } from './http/tool-routes.ts';
import type { Hub } from './hub.ts';
import { registerMcpRoutes } from './mcp/routes.ts';
import type { McpSessions } from './mcp/sessions.ts';
import { ProjectHubs } from './projects/hubs.ts';
import { HUB_VERSION } from './version.ts';

declare module 'fastify' {
  interface FastifyInstance {
    hub: Hub;
    mcpSessions: McpSessions;
    /** One-time login links and the SPA's login cookies (used when the hub has a token). */
    logins: LoginSessions;
    /** The projects this app serves: the default at `/`, every other under `/p/<slug>/`. */
    projects: ProjectHubs;
  }
}

export interface BuildAppOptions {
  /** The projects to serve; without it, only `hub` (at `/` and `/p/<its slug>/`). */
  projects?: ProjectHubs;
}

export const WEB_DIST = new URL('../web/dist/', import.meta.url).pathname;

export async function buildApp(hub: Hub, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const projects = options.projects ?? new ProjectHubs(hub);
  const app = Fastify({
    // `/p/<slug>/…` is served by the same routes as `/…`, in that project's hub (see projectOfRequest).
    rewriteUrl: (raw) => projects.rewrite(raw),
    // pino's Logger is wider than Fastify's logger type; widen here so the app keeps the default instance type.
    loggerInstance: hub.logger as FastifyBaseLogger,
    // Tool calls are recorded by the hub itself; a log line per request would cost ~30% of throughput.
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger either (a pino child per request costs a hot call about 0.5 µs): with
    // request logging off, request.log only logs failures, and those carry their own error id.
    childLoggerFactory: (logger) => logger,
    bodyLimit: hub.config.bodyLimitBytes,
    // Node's limits on slow requests, and its own 400/408/431 answers in the error envelope.
    ...serverOptions(hub.config),
    // Keep unknown keys: runTool reports them as validation errors instead of dropping them silently.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    forceCloseConnections: true,
    // A malformed URL or an over-long path parameter is refused before routing; answer it in the error
    // shape too (without echoing the URL back).
    frameworkErrors: (error, _request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendError(
        reply,
        'validation',
        tooLong
          ? 'a path parameter is longer than the hub accepts (100 characters)'
          : 'the URL is not valid; percent-encode path parameters',
        { status: tooLong ? 414 : 400 },
      );
    },
  });
  app.decorate('hub', hub);
  app.decorate('projects', projects);
  const logins = new LoginSessions();
  app.decorate('logins', logins);

  // 1. Security first: a refused request reaches nothing else; then the per-client rate limit.
  registerSecurity(app, hub.config, logins);
  registerRateLimit(app, new RateLimiter(hub.config.rateLimit), {
    // Decorated below, once the MCP routes exist; a request only arrives after that.
    hasSession: (id) => app.mcpSessions.has(id),
    loginOf: (cookie) => logins.sessionOf(cookie),
  });

  // 2. One error shape for Fastify's own failures too.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(
        reply,
        'validation',
        `the request body is larger than the hub accepts (${hub.config.bodyLimitBytes} bytes)`,
        { status: 413 },
      );
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, 'validation', 'unsupported content type; send application/json', {
        status: 415,
      });
    }
    if (
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      error instanceof SyntaxError
    ) {
      return sendError(reply, 'validation', 'the request body is not valid JSON');
    }
    if (error.validation) return sendError(reply, 'validation', error.message);
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, 'validation', error.message, { status: error.statusCode });
    }
    const errorId = newErrorId();
    request.log.error({ err: error, errorId, url: request.url, method: request.method }, 'request failed');
    return sendError(
      reply,
      'internal',
      `the request failed unexpectedly; the hub log has the details under error id ${errorId}`,
    );
  });

  // 3. Answers over 1 KB compressed when the client accepts it (brotli at quality 4, gzip, deflate): REST,
  // OpenAPI and the SPA's assets. Not the live stream (text/event-stream is never compressed) and not
  // /mcp, whose transport writes its own answers (and compresses them itself, see mcp/transport.ts).
  await app.register(compress, { threshold: 1024 });

  // 4. OpenAPI, with the envelope's schemas as named components.
  addSharedSchemas(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'cos hub',
        version: HUB_VERSION,
        description:
          'REST face of the cos hub tools. Every success is `{ data, meta }`; every error is `{ error: { category, retryable, message } }`.',
      },
      servers: [{ url: `http://127.0.0.1:${hub.config.port}` }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });

  // 5. REST routes from the registry, then MCP.
  await registerToolRoutes(app, hub);
  registerHookRoutes(app, hub);
  app.decorate('mcpSessions', await registerMcpRoutes(app, hub));
  registerMetrics(app, hub, registerStream(app, hub));

  registerLogin(app, logins, hub.config.token !== undefined);

  // 6. What anyone who passes the Host and Origin checks may fetch (every route above needs the token
  // when there is one): the OpenAPI document, Swagger UI, and the SPA's files, when built; otherwise a
  // page that says how to build it.
  await app.register(async (pub) => {
    pub.addHook('onRoute', markPublic);
    pub.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    await pub.register(swaggerUi, { routePrefix: '/docs' });
    const hasSpa = existsSync(`${WEB_DIST}index.html`);
    if (hasSpa) await pub.register(fastifyStatic, { root: WEB_DIST, wildcard: false });
    pub.setNotFoundHandler((request, reply) => {
      // The same normalised path the security check judged this request on.
      const path = normalisedPath(request.url);
      const project = /^\/p\/([^/]+)(\/(?:api(?:\/|$)|mcp$)|$)/.exec(path);
      if (project?.[2] && !projects.get(project[1]!)) {
        return sendError(
          reply,
          'not_found',
          `no project "${project[1]}" is served here; GET /api/projects lists them (\`cos project add\` registers one)`,
        );
      }
      // MCP clients probe /.well-known/oauth-* before connecting: the SPA's page with 200 would read as
      // metadata that does not parse, where a 404 tells them the hub asks for no OAuth.
      if (
        path.startsWith('/api/') ||
        path === '/api' ||
        path === '/mcp' ||
        path.startsWith('/.well-known/') ||
        request.method !== 'GET'
      ) {
        return sendError(
          reply,
          'not_found',
          `no route ${request.method} ${path}; /openapi.json lists the REST routes`,
        );
      }
      if (hasSpa) return reply.sendFile('index.html');
      return reply
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>cos hub</title><h1>cos hub</h1><p>The web app is not built yet: run <code>npm run build</code>. The API is at <a href="/docs">/docs</a>; agents connect to <code>/mcp</code>.</p>',
        );
    });
  });

  return app;
}
