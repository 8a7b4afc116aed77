// The API surface of a repository (issue 31) as agents and the SPA reach it: the real hub with its graph
// service (the indexer thread and its extraction helpers) over a git copy of test/fixtures/surface/ (one
// small app per framework), the official MCP Client over a real port, and the REST routes through inject.
// Every route, tool and command of the fixtures is listed with its handler, exactly: a lost entry, a new
// false one or a handler that stops resolving all fail.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { gitIn } from './tools/support.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Item = any;

const FIXTURE = fileURLToPath(new URL('../../fixtures/surface/', import.meta.url));
const host = { host: '127.0.0.1' };
let t: TestHub;
let client: Client;
let repo: string;

before(async () => {
  t = await startTestHub({ env: { COS_REPO: 'repo', COS_STATE_DIR: 'state' } });
  repo = t.config.repo;
  mkdirSync(repo, { recursive: true });
  cpSync(FIXTURE, repo, { recursive: true });
  gitIn(repo, 'init', '-q');
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '-qm', 'fixture apps');
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.listen();
  client = await connectClient(t.url);
});
after(async () => {
  await client.close();
  await t.close();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const res = await client.callTool({ name, arguments: args });
  return { isError: res.isError === true, env: res.structuredContent as Item };
};
const data = async (name: string, args: Record<string, unknown>) => {
  const res = await call(name, args);
  assert.equal(res.isError, false, JSON.stringify(res.env));
  return res.env.data;
};

/** `kind name [framework] file:line -> handler uid`, the way a reader checks the list. */
const line = (e: Item) =>
  `${e.kind} ${e.name} [${e.framework}] ${e.file}:${e.line} -> ${e.handler ? e.handler.uid : 'none'}`;

const EXPECTED = [
  'cli_command build [yargs] cli-node/build.js:5 -> code:function:cli-node/build.js::runBuild',
  'cli_command clean [yargs] cli-node/build.js:5 -> code:function:cli-node/build.js::cleanOutput',
  'cli_command add [commander] cli-node/cli.js:6 -> code:function:cli-node/todos.js::addTodo',
  // An inline action at the top level: no declaration to name.
  'cli_command list [commander] cli-node/cli.js:11 -> none',
  'cli_command cli [click] cli-py/cli.py:6 -> code:function:cli-py/cli.py::cli',
  'cli_command sync-all [click] cli-py/cli.py:11 -> code:function:cli-py/cli.py::sync_all',
  'cli_command push [click] cli-py/cli.py:16 -> code:function:cli-py/cli.py::push',
  'cli_command serve [argparse] cli-py/cli.py:29 -> code:function:cli-py/cli.py::serve',
  'cli_command version [argparse] cli-py/cli.py:32 -> none',
  'cli_command serve [cobra] cobra/cmd/serve.go:5 -> code:function:cobra/cmd/serve.go::runServe',
  'cli_command version [cobra] cobra/cmd/serve.go:11 -> code:variable:cobra/cmd/serve.go::versionCmd',
  'route ANY /orders/ [django] django/shop/urls.py:7 -> code:function:django/shop/views.py::order_list',
  'route ANY /orders/<int:pk>/ [django] django/shop/urls.py:8 -> code:class:django/shop/views.py::OrderDetail',
  'route ANY /legacy/(?P<slug>[-\\w]+)/ [django] django/shop/urls.py:9 -> code:function:django/shop/views.py::legacy',
  'event_handler order:placed [events] events/bus.ts:9 -> code:function:events/bus.ts::onOrderPlaced',
  'event_handler shutdown [events] events/bus.ts:10 -> none',
  'event_handler click [dom] events/bus.ts:13 -> code:function:events/bus.ts::wireDom',
  'route GET /health [express] express/src/server.js:7 -> none',
  'route GET /orders [express] express/src/server.js:8 -> code:function:express/src/routes/orders.js::listOrders',
  'route POST /orders [express] express/src/server.js:9 -> code:function:express/src/routes/orders.js::createOrder',
  'route GET /orders/:id [express] express/src/server.js:10 -> code:function:express/src/server.js::showOrder',
  'route DELETE /orders/:id [express] express/src/server.js:10 -> code:function:express/src/server.js::removeOrder',
  'event_handler exit [events] express/test/server.test.js:7 -> code:function:express/test/server.test.js::cleanup',
  'route GET /health [fastapi] fastapi/app/main.py:7 -> code:function:fastapi/app/main.py::health',
  'route GET /items/{item_id} [fastapi] fastapi/app/main.py:12 -> code:function:fastapi/app/main.py::read_item',
  'route POST /items [fastapi] fastapi/app/main.py:17 -> code:function:fastapi/app/main.py::create_item',
  'route WS /ws [fastapi] fastapi/app/main.py:22 -> code:function:fastapi/app/main.py::ws',
  'event_handler startup [events] fastapi/app/main.py:27 -> code:function:fastapi/app/main.py::startup',
  'route GET /users/:id [fastify] fastify/src/app.ts:6 -> code:function:fastify/src/users.ts::getUser',
  // The route object's inline handler: its calls belong to buildApp, so buildApp is what it runs.
  'route POST /users [fastify] fastify/src/app.ts:7 -> code:function:fastify/src/app.ts::buildApp',
  'route PUT /users/:id [fastify] fastify/src/app.ts:14 -> code:function:fastify/src/users.ts::getUser',
  'route PATCH /users/:id [fastify] fastify/src/app.ts:14 -> code:function:fastify/src/users.ts::getUser',
  'route GET / [flask] flask/app.py:9 -> code:function:flask/app.py::index',
  'route GET /orders [flask] flask/app.py:14 -> code:function:flask/app.py::orders_view',
  'route POST /orders [flask] flask/app.py:14 -> code:function:flask/app.py::orders_view',
  'route GET /admin/stats [flask] flask/app.py:19 -> code:function:flask/app.py::stats',
  'route GET / [chi] go-chi/routes.go:14 -> code:function:go-chi/routes.go::router',
  'route GET /articles [chi] go-chi/routes.go:16 -> code:function:go-chi/routes.go::listArticles',
  'route GET /articles/{articleID} [chi] go-chi/routes.go:17 -> code:function:go-chi/routes.go::getArticle',
  'route GET /ping [gin] go-gin/main.go:11 -> code:function:go-gin/main.go::ping',
  'route POST /v1/users [gin] go-gin/main.go:13 -> code:function:go-gin/main.go::createUser',
  'route GET /orders/{id} [net/http] go-http/cmd/server/main.go:12 -> code:function:go-http/handlers/orders.go::GetOrder',
  'route ANY /healthz [net/http] go-http/cmd/server/main.go:13 -> code:function:go-http/cmd/server/main.go::main',
  'route ANY /static/ [net/http] go-http/cmd/server/main.go:16 -> none',
  'route GET / [hono] hono/index.ts:5 -> none',
  'route POST /posts [hono] hono/index.ts:6 -> code:function:hono/index.ts::createPost',
  // `app.route('/api', api)` serves api's routes under /api.
  'route GET /api [hono] hono/index.ts:8 -> code:function:hono/index.ts::listPosts',
  'route GET /books [koa] koa/router.js:5 -> code:function:koa/books.js::listBooks',
  'route POST /books [koa] koa/router.js:6 -> none',
  'mcp_tool get_forecast [fastmcp] mcp-py/server.py:6 -> code:function:mcp-py/server.py::get_forecast',
  'mcp_tool alerts [fastmcp] mcp-py/server.py:12 -> code:function:mcp-py/server.py::get_alerts',
  'mcp_tool search_notes [mcp] mcp-ts/src/server.ts:7 -> code:function:mcp-ts/src/notes.ts::searchNotes',
  'mcp_tool add_note [mcp] mcp-ts/src/server.ts:12 -> code:function:mcp-ts/src/server.ts::createServer',
  'route GET /orders [nestjs] nest/src/orders/orders.controller.ts:10 -> code:method:nest/src/orders/orders.controller.ts::OrdersController.findAll',
  'route GET /orders/:id [nestjs] nest/src/orders/orders.controller.ts:15 -> code:method:nest/src/orders/orders.controller.ts::OrdersController.findOne',
  'route POST /orders [nestjs] nest/src/orders/orders.controller.ts:20 -> code:method:nest/src/orders/orders.controller.ts::OrdersController.create',
  'route DELETE /orders/:id [nestjs] nest/src/orders/orders.controller.ts:25 -> code:method:nest/src/orders/orders.controller.ts::OrdersController.remove',
  'event_handler order.shipped [nestjs] nest/src/orders/orders.controller.ts:30 -> code:method:nest/src/orders/orders.controller.ts::OrdersController.onShipped',
  'route POST /cart [nextjs] next/app/(shop)/cart/route.ts:1 -> code:function:next/app/(shop)/cart/route.ts::POST',
  'route GET /api/orders/[id] [nextjs] next/app/api/orders/[id]/route.ts:3 -> code:function:next/app/api/orders/[id]/route.ts::GET',
  'route DELETE /api/orders/[id] [nextjs] next/app/api/orders/[id]/route.ts:7 -> code:function:next/app/api/orders/[id]/route.ts::DELETE',
  'route ANY /api/users [nextjs] next/pages/api/users/index.ts:3 -> code:function:next/pages/api/users/index.ts::handler',
  'route GET /api/orders [spring] spring/src/main/java/com/shop/OrderController.java:9 -> code:method:spring/src/main/java/com/shop/OrderController.java::OrderController.list',
  'route GET /api/orders/{id} [spring] spring/src/main/java/com/shop/OrderController.java:12 -> code:method:spring/src/main/java/com/shop/OrderController.java::OrderController.get',
  'route POST /api/orders [spring] spring/src/main/java/com/shop/OrderController.java:15 -> code:method:spring/src/main/java/com/shop/OrderController.java::OrderController.create',
  'route DELETE /api/orders/{id} [spring] spring/src/main/java/com/shop/OrderController.java:18 -> code:method:spring/src/main/java/com/shop/OrderController.java::OrderController.delete',
  'event_handler onStartup [spring] spring/src/main/java/com/shop/OrderController.java:21 -> code:method:spring/src/main/java/com/shop/OrderController.java::OrderController.onStartup',
];

describe('cos_graph_api_surface', () => {
  test('finds every route, tool, command and event handler of the fixture apps, each with its handler', async () => {
    const d = await data('cos_graph_api_surface', { limit: 500 });
    assert.deepEqual(d.entries.map(line), EXPECTED);
    assert.equal(d.total, EXPECTED.length);
    assert.deepEqual(d.by_kind, { route: 45, mcp_tool: 4, cli_command: 11, event_handler: 7 });
    assert.equal(d.next_cursor, null);
    assert.equal(typeof d.meta.freshness.generation, 'number');
    // Two `GET /` registrations in one file are two entries with two uids (the second is served at /api).
    const hono = d.entries.filter((e: Item) => e.file === 'hono/index.ts' && e.method === 'GET');
    assert.deepEqual(
      hono.map((e: Item) => `${e.uid} ${e.name}`),
      ['code:route:hono/index.ts::GET / GET /', 'code:route:hono/index.ts::GET /@2 GET /api'],
    );
    const handler = d.entries.find(
      (e: Item) => e.name === 'GET /orders' && e.framework === 'express',
    ).handler;
    assert.deepEqual(handler, {
      uid: 'code:function:express/src/routes/orders.js::listOrders',
      label: 'listOrders',
      file: 'express/src/routes/orders.js',
      line: 3,
    });
  });

  test('kind and path narrow the list; by_kind counts the path filter across kinds', async () => {
    const tools = await data('cos_graph_api_surface', { kind: 'mcp_tool' });
    assert.deepEqual(
      tools.entries.map((e: Item) => e.name),
      ['get_forecast', 'alerts', 'search_notes', 'add_note'],
    );
    const api = await data('cos_graph_api_surface', { path: '/api/orders' });
    assert.deepEqual(
      api.entries.map((e: Item) => `${e.name} ${e.framework}`),
      [
        'GET /api/orders/[id] nextjs',
        'DELETE /api/orders/[id] nextjs',
        'GET /api/orders spring',
        'GET /api/orders/{id} spring',
        'POST /api/orders spring',
        'DELETE /api/orders/{id} spring',
      ],
    );
    const folder = await data('cos_graph_api_surface', { path: 'cli-py/' });
    assert.deepEqual(folder.by_kind, { route: 0, mcp_tool: 0, cli_command: 5, event_handler: 0 });
    const commands = await data('cos_graph_api_surface', { path: 'go-http', kind: 'cli_command' });
    assert.equal(commands.total, 0);
    assert.deepEqual(commands.entries, []);
  });

  test('pages by cursor through every entry once; a foreign or stale cursor is refused', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const d = await data('cos_graph_api_surface', { limit: 9, ...(cursor ? { cursor } : {}) });
      assert.ok(d.entries.length <= 9);
      seen.push(...d.entries.map((e: Item) => e.uid));
      assert.equal(d.meta.next_cursor, d.next_cursor);
      cursor = d.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    assert.equal(seen.length, EXPECTED.length);
    assert.equal(new Set(seen).size, EXPECTED.length);

    const first = await data('cos_graph_api_surface', { limit: 5 });
    const other = await call('cos_graph_api_surface', { limit: 5, kind: 'route', cursor: first.next_cursor });
    assert.equal(other.isError, true);
    assert.equal(other.env.error.category, 'validation');
    assert.match(other.env.error.message, /same arguments/);
    const junk = await call('cos_graph_api_surface', { cursor: 'bm90IGEgY3Vyc29y' });
    assert.equal(junk.env.error.category, 'validation');
    const kind = await call('cos_graph_api_surface', { kind: 'websocket' });
    assert.equal(kind.isError, true);
    assert.equal(kind.env.error.category, 'validation');
  });
});

describe('cos_graph_entrypoints', () => {
  test('scores package bins and mains first, then handlers, with their reasons; tests come last', async () => {
    const d = await data('cos_graph_entrypoints', { limit: 500 });
    const by = new Map<string, Item>(d.entries.map((e: Item) => [e.uid, e]));
    const top = d.entries.slice(0, 2).map((e: Item) => `${e.score} ${e.uid} ${e.reasons.join('; ')}`);
    assert.deepEqual(top, [
      '100 code:file:cli-node/cli.js package.json bin todo-cli',
      '100 code:file:express/bin/orders.js package.json bin orders',
    ]);
    assert.deepEqual(by.get('code:file:express/src/server.js')?.reasons, ['package.json main']);
    assert.deepEqual(by.get('code:file:flask/app.py')?.reasons, ['if __name__ == "__main__"']);
    assert.deepEqual(by.get('code:function:go-http/cmd/server/main.go::main')?.reasons, [
      'func main in package main',
      'handles route ANY /healthz',
    ]);
    assert.deepEqual(
      by.get('code:method:spring/src/main/java/com/shop/Application.java::Application.main')?.reasons,
      ['public static void main'],
    );
    const getUser = by.get('code:function:fastify/src/users.ts::getUser');
    assert.deepEqual(getUser.reasons, [
      'handles route GET /users/:id',
      'handles route PUT /users/:id',
      'handles route PATCH /users/:id',
    ]);
    // Three routes outrank one.
    assert.ok(getUser.score > by.get('code:function:express/src/routes/orders.js::listOrders').score);
    assert.deepEqual(by.get('code:function:cobra/cmd/serve.go::runServe')?.reasons, [
      'handles cli command serve',
    ]);
    assert.deepEqual(by.get('code:function:mcp-py/server.py::get_alerts')?.reasons, [
      'handles mcp tool alerts',
    ]);
    // An exported class nothing in the repository uses is API for someone outside it.
    assert.deepEqual(by.get('code:class:nest/src/orders/orders.controller.ts::OrdersController')?.reasons, [
      'exported, and nothing in the repository uses it',
    ]);
    // An internal helper nothing calls is dead code, not an entry point.
    assert.equal(by.has('code:function:express/src/server.js::authenticate'), false);
    const cleanup = by.get('code:function:express/test/server.test.js::cleanup');
    assert.equal(cleanup.is_test, true);
    assert.equal(d.entries[d.entries.length - 1].is_test, true);
    const firstTest = d.entries.findIndex((e: Item) => e.is_test);
    assert.ok(
      d.entries.slice(firstTest).every((e: Item) => e.is_test),
      'tests are ranked after the rest',
    );
    assert.equal(d.total, d.entries.length);
  });

  test('pages by cursor', async () => {
    const all = await data('cos_graph_entrypoints', { limit: 500 });
    const first = await data('cos_graph_entrypoints', { limit: 10 });
    const second = await data('cos_graph_entrypoints', { limit: 10, cursor: first.next_cursor });
    assert.deepEqual(
      [...first.entries, ...second.entries].map((e: Item) => e.uid),
      all.entries.slice(0, 20).map((e: Item) => e.uid),
    );
  });
});

describe('impact and change detection name the surface they touch', () => {
  test('cos_graph_impact of a handler, and of what a handler calls, lists the routes above it', async () => {
    const direct = await data('cos_graph_impact', {
      node: 'code:function:express/src/routes/orders.js::listOrders',
    });
    assert.deepEqual(
      direct.api_surface.map((e: Item) => `${e.kind} ${e.name} ${e.depth} ${e.via_uid}`),
      ['route GET /orders 1 code:function:express/src/routes/orders.js::listOrders'],
    );
    assert.equal(direct.api_surface_count, 1);
    const service = await data('cos_graph_impact', {
      node: 'code:method:nest/src/orders/orders.service.ts::OrdersService.findAll',
    });
    assert.deepEqual(
      service.api_surface.map((e: Item) => `${e.name} ${e.depth} ${e.file}:${e.line}`),
      ['GET /orders 2 nest/src/orders/orders.controller.ts:10'],
    );
  });

  test('cos_graph_detect_changes lists the entries whose handler or registration changed, and says so in the risk', async () => {
    const orders = join(repo, 'express/src/routes/orders.js');
    const server = join(repo, 'express/src/server.js');
    const before = { orders: readFileSync(orders, 'utf8'), server: readFileSync(server, 'utf8') };
    try {
      writeFileSync(orders, before.orders.replace('res.json(db.all());', 'res.json(db.all().reverse());'));
      writeFileSync(server, before.server.replace("res.send('ok')", "res.send('healthy')"));
      await t.hub.services.graph.reindex({
        paths: ['express/src/routes/orders.js', 'express/src/server.js'],
      });
      const d = await data('cos_graph_detect_changes', {});
      assert.deepEqual(
        d.affected.api_surface.map((e: Item) => `${e.kind} ${e.name} ${e.file}:${e.line} depth ${e.depth}`),
        [
          'route GET /health express/src/server.js:7 depth 0',
          'route GET /orders express/src/server.js:8 depth 1',
        ],
      );
      assert.equal(d.summary.api_surface, 2);
      assert.ok(
        d.risk_reasons.some(
          (r: string) =>
            r === 'touches 2 entry points of the API surface: route GET /health, route GET /orders',
        ),
        d.risk_reasons.join(' | '),
      );
      assert.notEqual(d.risk_level, 'low');
    } finally {
      writeFileSync(orders, before.orders);
      writeFileSync(server, before.server);
      await t.hub.services.graph.reindex({
        paths: ['express/src/routes/orders.js', 'express/src/server.js'],
      });
    }
  });
});

describe('freshness', () => {
  test('a new route appears with the next index, and a cursor of the old graph is refused', async () => {
    const old = await data('cos_graph_api_surface', { limit: 3 });
    const app = join(repo, 'koa/router.js');
    const text = readFileSync(app, 'utf8');
    try {
      writeFileSync(
        app,
        text.replace(
          'export default router;',
          "router.delete('/books/:id', removeBook);\nfunction removeBook(ctx) { ctx.status = 204; }\nexport default router;",
        ),
      );
      await t.hub.services.graph.reindex({ paths: ['koa/router.js'] });
      const now = await data('cos_graph_api_surface', { path: 'koa' });
      assert.deepEqual(
        now.entries.map((e: Item) => `${e.name} -> ${e.handler?.label ?? 'none'}`),
        ['GET /books -> listBooks', 'POST /books -> none', 'DELETE /books/:id -> removeBook'],
      );
      assert.ok(now.meta.freshness.generation > old.meta.freshness.generation);
      const stale = await call('cos_graph_api_surface', { limit: 3, cursor: old.next_cursor });
      assert.equal(stale.env.error.category, 'validation');
      assert.match(stale.env.error.message, /changed since this cursor/);
    } finally {
      writeFileSync(app, text);
      await t.hub.services.graph.reindex({ paths: ['koa/router.js'] });
    }
  });
});

describe('over REST', () => {
  test('GET /api/graph/api-surface and /api/graph/entrypoints answer the whole list; bad input is 400', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/graph/api-surface?kind=cli_command',
      headers: host,
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.data.entries.length, 11);
    assert.equal(body.data.by_kind.route, 45);
    const ep = await t.app.inject({ method: 'GET', url: '/api/graph/entrypoints?limit=3', headers: host });
    assert.equal(ep.statusCode, 200);
    assert.equal(ep.json().data.entries.length, 3);
    assert.ok(ep.json().data.next_cursor);
    const bad = await t.app.inject({ method: 'GET', url: '/api/graph/api-surface?kind=nope', headers: host });
    assert.equal(bad.statusCode, 400);
  });
});

describe('the other graph tools over surface entries', () => {
  test('trace from a route starts at its handler; context shows the handles edge; the graph stays healthy', async () => {
    const trace = await data('cos_graph_trace', { entry: 'code:route:django/shop/urls.py::ANY /orders/' });
    assert.deepEqual(trace.steps[0], {
      depth: 1,
      from: 'code:route:django/shop/urls.py::ANY /orders/',
      to: 'code:function:django/shop/views.py::order_list',
      to_label: 'order_list',
      to_kind: 'function',
      edge_type: 'handles',
      file_path: 'django/shop/urls.py',
      line: 7,
      confidence: 1,
      external: false,
      repeat: false,
    });
    assert.ok(trace.steps.some((s: Item) => s.depth === 2 && s.to_label === 'JsonResponse'));
    const ctx = await data('cos_graph_context', { node: 'code:route:express/src/server.js::POST /orders' });
    assert.deepEqual(
      ctx.edges_by_type.handles.map((e: Item) => e.uid),
      ['code:function:express/src/routes/orders.js::createOrder'],
    );
    // A handler is used: dead code no longer lists it.
    const dead = await data('cos_graph_dead_code', { limit: 500 });
    const deadUids = dead.dead.map((d: Item) => d.uid);
    assert.ok(!deadUids.includes('code:function:express/src/routes/orders.js::createOrder'));
    const doctor = await data('cos_graph_doctor', {});
    assert.equal(doctor.healthy, true, JSON.stringify(doctor.issues));
  });
});

describe('the repository map', () => {
  test("cos_graph_overview's API surface and entry points come from the surface", async () => {
    const o = await data('cos_graph_overview', {});
    assert.equal(o.api_surface.total, 45);
    assert.deepEqual(o.api_surface.routes[0], {
      method: 'ANY',
      path: '/orders/',
      handler: 'order_list',
      file: 'django/shop/urls.py',
    });
    assert.ok(o.api_surface.routes.length <= 8);
    assert.deepEqual(
      o.entry_points.items.slice(0, 2).map((e: Item) => e.uid),
      ['code:file:cli-node/cli.js', 'code:file:express/bin/orders.js'],
    );
    assert.ok(o.entry_points.items.every((e: Item) => !e.file?.includes('/test/')));
  });
});
