// The surface recognisers on the shapes real code takes beyond the fixture apps: app factories, typer,
// wrapped and typed handlers, gorilla's Methods and sub-routers, Spring's path and method arrays, and
// the look-alikes that are no route (`cache.get('/key', f)`, `redis.command('GET')`, `@app.errorhandler`).
// Then the same over real indexes: handlers named through a typed parameter resolve to their method,
// and this repository's own Fastify routes and tool registry come out where they are literal.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { extractFile } from '../../../server/graph/extract/index.ts';
import type { Language } from '../../../server/graph/types.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { runTool } from '../../../server/tools/run.ts';
import { graphHub } from './tools/support.ts';

const SURFACE = new Set(['route', 'mcp_tool', 'cli_command', 'event_handler']);

/** `kind name [framework] @line -> handler as written` for each entry of one file. */
async function surface(path: string, language: Language, text: string): Promise<string[]> {
  const ex = await extractFile(path, language, text);
  return ex.nodes
    .filter((n) => SURFACE.has(n.kind))
    .map((n) => {
      const ref = ex.facts.refs.find((r) => r.type === 'handles' && r.from === n.uid);
      const handler = ref ? `${ref.name}${ref.recvType ? ` (${ref.recvType})` : ''}` : 'none';
      return `${n.kind} ${n.label} [${(n.metadata as { framework: string }).framework}] @${n.startLine} -> ${handler}`;
    });
}

/** A repository in a temp folder: `write` its files, then `index` it with a real graph hub and ask it. */
function tempRepo(prefix: string) {
  const repo = mkdtempSync(join(tmpdir(), prefix));
  return {
    write(path: string, text: string): void {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), text);
    },
    async index(ask: (g: Awaited<ReturnType<typeof graphHub>>) => Promise<void>): Promise<void> {
      const g = await graphHub(repo);
      try {
        await ask(g);
      } finally {
        await g.close();
        rmSync(repo, { recursive: true, force: true });
      }
    },
  };
}

/** Every route of the surface as `METHOD path [framework] -> handler`, as served. */
async function routeLines(g: Awaited<ReturnType<typeof graphHub>>): Promise<string[]> {
  const d = await g.data('cos_graph_api_surface', { kind: 'route' });
  return d.entries.map(
    (e: { name: string; framework: string; handler: { label: string } | null }) =>
      `${e.name} [${e.framework}] -> ${e.handler?.label}`,
  );
}

test('Flask app factories, typer commands and non-ASCII paths; an error handler is no route', async () => {
  const text = `import typer
from flask import Flask

cli = typer.Typer()


def create_app():
    app = Flask(__name__)

    @app.route('/café/<name>', methods=['PUT'])
    def greet(name):
        return name

    @app.errorhandler(404)
    def missing(e):
        return "", 404

    return app


@cli.command()
def import_data(path: str):
    pass


if '__main__' == __name__:
    cli()
`;
  assert.deepEqual(await surface('factory.py', 'python', text), [
    // The nested view has no node of its own: its calls are create_app's.
    'route PUT /café/<name> [flask] @10 -> create_app',
    'cli_command import-data [typer] @21 -> import_data',
  ]);
  const ex = await extractFile('factory.py', 'python', text);
  assert.deepEqual(ex.nodes[0]?.metadata, { entry: ['python_main'] });
});

test('Express handlers behind middleware and wrappers; a computed path is no route', async () => {
  const text = `import express from 'express';
import { validate, schema, handler } from './h';

export function mount(router: express.Router, ctrl: OrdersController) {
  router.get('/a', auth, validate(schema), handler);
  router.post(\`/b/\${'x'}\`, wrap(async (req, res) => { res.end(); }));
  router.get(\`\${base}/c\`, handler);
  router.get('/orders', ctrl.list);
}
`;
  assert.deepEqual(await surface('routes.ts', 'typescript', text), [
    'route GET /a [express] @5 -> handler',
    // A template path keeps its substitution as written.
    `route POST /b/\${'x'} [express] @6 -> mount`,
    'route GET /orders [express] @8 -> ctrl.list (OrdersController)',
  ]);
});

test('look-alikes in code that imports no router or CLI library are left alone', async () => {
  const text = `const cache = new Map();
export function read(redis) {
  emitter.on('ready', onReady);
  return cache.get('/key', fallback) ?? redis.command('GET');
}
function fallback() {}
function onReady() {}
`;
  assert.deepEqual(await surface('cache.ts', 'typescript', text), [
    'event_handler ready [events] @3 -> onReady',
  ]);
  const go = `package web

func lookup(c *Cache) { c.Get("/key", nil) }
`;
  assert.deepEqual(await surface('cache.go', 'go', go), []);
});

test("gorilla's Methods and sub-router prefixes; a handler through a typed parameter carries its type", async () => {
  const text = `package web

import "github.com/gorilla/mux"

func Routes(store *Store) *mux.Router {
	r := mux.NewRouter()
	api := r.PathPrefix("/api").Subrouter()
	api.HandleFunc("/items", store.List).Methods("GET", "POST")
	return r
}
`;
  assert.deepEqual(await surface('web/routes.go', 'go', text), [
    'route GET /api/items [gorilla] @8 -> store.List (Store)',
    'route POST /api/items [gorilla] @8 -> store.List (Store)',
  ]);
});

test('echo and fiber routes, by the router their file imports', async () => {
  const echo = `package main

import "github.com/labstack/echo/v4"

func main() {
	e := echo.New()
	e.GET("/users/:id", getUser)
	admin := e.Group("/admin")
	admin.DELETE("/users/:id", deleteUser)
}
`;
  assert.deepEqual(await surface('echo.go', 'go', echo), [
    'route GET /users/:id [echo] @7 -> getUser',
    'route DELETE /admin/users/:id [echo] @9 -> deleteUser',
  ]);
  const fiber = `package main

import "github.com/gofiber/fiber/v2"

func main() {
	app := fiber.New()
	app.Get("/api/list", list)
	app.Post("/api/items", func(c *fiber.Ctx) error { return nil })
}
`;
  assert.deepEqual(await surface('fiber.go', 'go', fiber), [
    'route GET /api/list [fiber] @7 -> list',
    'route POST /api/items [fiber] @8 -> main',
  ]);
});

test("Spring's path and method arrays, and a mapping without a leading slash", async () => {
  const text = `package x;

@RestController
public class Paths {
    @RequestMapping(path = {"/a", "/b"}, method = {RequestMethod.GET, RequestMethod.HEAD})
    public String ab() { return ""; }

    @PostMapping("x")
    String x() { return ""; }
}
`;
  assert.deepEqual(await surface('Paths.java', 'java', text), [
    'route GET /a [spring] @5 -> Paths.ab',
    'route HEAD /a [spring] @5 -> Paths.ab',
    'route GET /b [spring] @5 -> Paths.ab',
    'route HEAD /b [spring] @5 -> Paths.ab',
    'route POST /x [spring] @8 -> Paths.x',
  ]);
});

test('handlers named through typed parameters resolve to the methods they name, across files', async () => {
  const { write, index } = tempRepo('cos-surface-typed-');
  write('go.mod', 'module example.com/web\n\ngo 1.22\n\nrequire github.com/gorilla/mux v1.8.1\n');
  write(
    'routes.go',
    `package web

import "github.com/gorilla/mux"

func Routes(store *Store) *mux.Router {
	r := mux.NewRouter()
	r.HandleFunc("/items", store.List).Methods("GET")
	return r
}
`,
  );
  write(
    'store.go',
    `package web

import "net/http"

type Store struct{}

func (s *Store) List(w http.ResponseWriter, r *http.Request) {}
`,
  );
  write(
    'src/mount.ts',
    `import express from 'express';
import { OrdersController } from './orders.ts';

export function mount(app: express.Express, ctrl: OrdersController) {
  app.get('/orders', ctrl.list);
}
`,
  );
  write('src/orders.ts', 'export class OrdersController {\n  list() {\n    return [];\n  }\n}\n');
  // Built bins: one whose source is a bin of its name, one the graph cannot map.
  write('package.json', JSON.stringify({ name: 'web', bin: { web: 'dist/web.js', gone: 'dist/gone.js' } }));
  write('src/bin/web.ts', "import { mount } from '../mount.ts';\nconsole.log(mount);\n");
  await index(async (g) => {
    const ep = await g.data('cos_graph_entrypoints', {});
    const reasons = new Map(ep.entries.map((e: { uid: string; reasons: string[] }) => [e.uid, e.reasons]));
    assert.deepEqual(reasons.get('code:file:src/bin/web.ts'), ['package.json bin web']);
    assert.deepEqual(reasons.get('code:file:package.json'), [
      'package.json bin gone (dist/gone.js: not in the graph)',
    ]);
    const d = await g.data('cos_graph_api_surface', {});
    assert.deepEqual(
      d.entries.map(
        (e: { name: string; handler: { uid: string } | null }) => `${e.name} -> ${e.handler?.uid}`,
      ),
      [
        'GET /items -> code:method:store.go::Store.List',
        'GET /orders -> code:method:src/orders.ts::OrdersController.list',
      ],
    );
  });
});

test("this repository's own routes and tools: literal Fastify routes and the tool registry's definitions", async () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const repo = mkdtempSync(join(tmpdir(), 'cos-surface-self-'));
  for (const dir of ['server/http', 'server/tools/graph'])
    cpSync(join(root, dir), join(repo, dir), { recursive: true });
  cpSync(join(root, 'server/app.ts'), join(repo, 'server/app.ts'));
  const g = await graphHub(repo);
  try {
    const tools = await g.data('cos_graph_api_surface', { kind: 'mcp_tool', limit: 500 });
    const impact = tools.entries.find((e: { name: string }) => e.name === 'cos_graph_impact');
    assert.equal(impact.framework, 'tool-registry');
    assert.equal(impact.file, 'server/tools/graph/impact.ts');
    // The handler is written inline in the definition: the constant it defines owns its calls.
    assert.equal(impact.handler.uid, 'code:constant:server/tools/graph/impact.ts::graphImpactTool');
    assert.ok(tools.entries.some((e: { name: string }) => e.name === 'cos_graph_api_surface'));
    const routes = await g.data('cos_graph_api_surface', { kind: 'route', limit: 500 });
    const names = routes.entries.map((e: { name: string }) => e.name);
    for (const want of ['GET /api/graph/impact', 'GET /api/graph/api-surface', 'GET /openapi.json'])
      assert.ok(names.includes(want), `${want} in ${names.join(', ')}`);
  } finally {
    await g.close();
    rmSync(repo, { recursive: true, force: true });
  }
});

test("an agent's page is cut to its budget and the cursor goes on from there; a symlink out of the repository adds nothing", async () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-surface-many-'));
  const outside = mkdtempSync(join(tmpdir(), 'cos-surface-outside-'));
  const routes = Array.from(
    { length: 300 },
    (_, i) =>
      `app.get('/reports/${i}/summary-by-region-and-quarter', handleReport${i});\nfunction handleReport${i}(req, res) { res.end(); }`,
  );
  writeFileSync(
    join(repo, 'server.js'),
    `const express = require('express');\nconst app = express();\n${routes.join('\n')}\n`,
  );
  writeFileSync(
    join(outside, 'secret.js'),
    "const express = require('express');\nexpress().get('/secret', h);\n",
  );
  symlinkSync(join(outside, 'secret.js'), join(repo, 'linked.js'));
  const g = await graphHub(repo);
  try {
    const page = await g.data('cos_graph_api_surface', { limit: 500 });
    assert.equal(page.total, 300, 'the linked file outside the repository is not read');
    assert.ok(
      page.entries.length < 300 && page.entries.length > 20,
      `${page.entries.length} entries on the page`,
    );
    assert.match(page.meta.held_back_reason, /agent budget/);
    assert.ok(page.meta.tokens_estimated * 4 < 32_000);
    const next = await g.data('cos_graph_api_surface', { limit: 500, cursor: page.next_cursor });
    assert.equal(next.entries[0].name, `GET /reports/${page.entries.length}/summary-by-region-and-quarter`);
    // The browser's answer is not cut: REST takes the page whole.
    const rest = await runTool(
      catalog.find((t) => t.name === 'cos_graph_api_surface')!,
      { limit: 500 },
      {
        applyBudget: false,
        ctx: g.hub.context({ transport: 'rest' }),
      },
    );
    assert.ok(rest.ok);
    assert.equal((rest.data as { entries: unknown[] }).entries.length, 300);
  } finally {
    await g.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('any mix of registrations with any names keeps uids unique, labels short and every handles reference on an entry', async () => {
  const quote = (v: string) => JSON.stringify(v);
  const line = fc.oneof(
    fc
      .tuple(fc.constantFrom('get', 'post', 'delete'), fc.string({ maxLength: 40 }))
      .map(([m, p]) => `app.${m}(${quote(`/${p}`)}, handler);`),
    fc.string({ maxLength: 30 }).map((n) => `server.registerTool(${quote(n)}, {}, async () => ({}));`),
    fc.string({ maxLength: 30 }).map((n) => `program.command(${quote(n)}).action(run);`),
    fc.string({ maxLength: 30 }).map((n) => `bus.on(${quote(n)}, (e) => handle(e));`),
    fc.string({ maxLength: 2000 }).map((p) => `app.get(${quote(`/${p}`)}, handler);`),
    fc.constant('app.get("/same", handler);'),
    fc.constant('function handler(req, res) { res.end(); }'),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(line, { maxLength: 25 }), async (lines) => {
      const text = `const express = require('express');\nconst { Command } = require('commander');\n${lines.join('\n')}\n`;
      const ex = await extractFile('app.js', 'javascript', text);
      const uids = ex.nodes.map((n) => n.uid);
      assert.equal(new Set(uids).size, uids.length, 'uids are unique');
      const entries = new Set(ex.nodes.filter((n) => SURFACE.has(n.kind)).map((n) => n.uid));
      for (const n of ex.nodes) assert.ok(n.label.length <= 200, `label of ${n.label.length} characters`);
      for (const r of ex.facts.refs) if (r.type === 'handles') assert.ok(entries.has(r.from), r.from);
    }),
    { numRuns: 60 },
  );
});

test('routes served under a mount in another file carry its prefix, a mount of a mount too; impact names them so', async () => {
  const { write, index } = tempRepo('cos-surface-mounts-');
  write(
    'web/app.js',
    "const express = require('express');\nconst api = require('./routes');\nconst app = express();\napp.use('/api', api);\napp.get('/health', health);\nfunction health() {}\n",
  );
  write(
    'web/routes/index.js',
    "const express = require('express');\nconst orders = require('./orders');\nconst router = express.Router();\nrouter.use('/orders', auth, orders);\nmodule.exports = router;\nfunction auth() {}\n",
  );
  write(
    'web/routes/orders.js',
    "const express = require('express');\nconst router = express.Router();\nrouter.get('/', listOrders);\nrouter.post('/:id/ship', shipOrder);\nfunction listOrders() {}\nfunction shipOrder() {}\nmodule.exports = router;\n",
  );
  write(
    'svc/app/main.py',
    'from fastapi import FastAPI\n\nfrom .routers import items\nfrom .admin import admin_bp\n\napp = FastAPI()\napp.include_router(items.router, prefix="/items")\napp.register_blueprint(admin_bp, url_prefix="/admin")\n',
  );
  write('svc/app/__init__.py', '');
  write('svc/app/routers/__init__.py', '');
  write(
    'svc/app/routers/items.py',
    'from fastapi import APIRouter\n\nrouter = APIRouter()\nother = APIRouter()\n\n\n@router.get("/{item_id}")\ndef read_item(item_id: int):\n    return item_id\n\n\n@other.get("/unmounted")\ndef unmounted():\n    return 1\n',
  );
  write(
    'svc/app/admin.py',
    'from flask import Blueprint\n\nadmin_bp = Blueprint("admin", __name__)\n\n\n@admin_bp.route("/stats")\ndef stats():\n    return {}\n',
  );
  await index(async (g) => {
    const d = await g.data('cos_graph_api_surface', { kind: 'route' });
    assert.deepEqual(
      d.entries.map(
        (e: { name: string; handler: { label: string } | null }) => `${e.name} -> ${e.handler?.label}`,
      ),
      [
        'GET /admin/stats -> stats',
        'GET /items/{item_id} -> read_item',
        // Registered on another router of the file, which nothing mounts.
        'GET /unmounted -> unmounted',
        'GET /health -> health',
        'GET /api/orders -> listOrders',
        'POST /api/orders/:id/ship -> shipOrder',
      ],
    );
    const under = await g.data('cos_graph_api_surface', { path: '/api/orders' });
    assert.equal(under.total, 2);
    const impact = await g.data('cos_graph_impact', {
      node: 'code:function:web/routes/orders.js::shipOrder',
    });
    assert.deepEqual(
      impact.api_surface.map((e: { name: string }) => e.name),
      ['POST /api/orders/:id/ship'],
    );
  });
});

test("Fastify plugins registered with a prefix serve their routes under it: imported, required, dynamic, this file's named and inline ones, nested; Express mounts a required router", async () => {
  const { write, index } = tempRepo('cos-surface-plugins-');
  // As Fastify's own documentation and fastify-cli's templates write them: a plugin is a function handed
  // the instance (often named `fastify`), exported as the module or by default.
  write(
    'api/server.ts',
    `import Fastify from 'fastify';
import adminRoutes from './routes/admin.js';

interface CreateUser { name: string }

const app = Fastify();

async function itemRoutes(instance: any) {
  instance.get('/items', listItems);
  instance.route({ method: 'DELETE', url: '/items/:id', handler: removeItem });
}

function listItems() { return []; }
function removeItem() {}

app.register(itemRoutes, { prefix: '/shop' });
app.register(adminRoutes, { prefix: '/admin' });
app.register(import('./routes/reports.js'), { prefix: '/reports' });
app.register(require('./routes/users'), { prefix: '/v1' });
app.register(
  async (api) => {
    api.post<{ Body: CreateUser }>('/users', createUser);
    api.register(async (v) => { v.get('/status', status); }, { prefix: '/v2' });
  },
  { prefix: '/api' },
);
app.register(require('./routes/users'), { logLevel: 'warn' });
app.get('/', status);

function createUser() {}
function status() {}
`,
  );
  write(
    'api/routes/admin.ts',
    "import type { FastifyInstance } from 'fastify';\n\nexport default async function (fastify: FastifyInstance) {\n  fastify.get('/stats', stats);\n}\n\nfunction stats() {}\n",
  );
  write(
    'api/routes/reports.js',
    "export default async function reports(fastify) {\n  fastify.get('/daily', daily);\n}\nfunction daily() {}\n",
  );
  write(
    'api/routes/users.js',
    "'use strict'\nasync function listUsers (request, reply) { return [] }\n\nmodule.exports = async function (fastify, opts) {\n  fastify.get('/users', listUsers)\n}\n",
  );
  write(
    'web/app.js',
    "const express = require('express')\nconst app = express()\napp.use('/accounts', require('./routes/accounts'))\n",
  );
  write(
    'web/routes/accounts.js',
    "const router = require('express').Router()\nrouter.get('/:id', function show (req, res) { res.json({}) })\nmodule.exports = router\n",
  );
  await index(async (g) => {
    assert.deepEqual(await routeLines(g), [
      'GET /admin/stats [fastify] -> stats',
      'GET /reports/daily [fastify] -> daily',
      'GET /v1/users [fastify] -> listUsers',
      'GET /shop/items [fastify] -> listItems',
      'DELETE /shop/items/:id [fastify] -> removeItem',
      'POST /api/users [fastify] -> createUser',
      'GET /api/v2/status [fastify] -> status',
      'GET / [fastify] -> status',
      'GET /accounts/:id [express] -> show',
    ]);
    const impact = await g.data('cos_graph_impact', {
      node: 'code:function:api/routes/reports.js::daily',
    });
    assert.deepEqual(
      impact.api_surface.map((e: { name: string }) => e.name),
      ['GET /reports/daily'],
    );
  });
});

test("Django's include(), Flask's add_url_rule, Koa's router prefix and Hono's basePath give routes their served paths", async () => {
  const { write, index } = tempRepo('cos-surface-prefixes-');
  // Django's tutorial: the project's urls.py includes the app's by its dotted module name.
  write(
    'site/mysite/urls.py',
    'from django.contrib import admin\nfrom django.urls import include, path\n\nurlpatterns = [\n    path("polls/", include("polls.urls")),\n    path("admin/", admin.site.urls),\n]\n',
  );
  write('site/mysite/__init__.py', '');
  write('site/polls/__init__.py', '');
  write(
    'site/polls/urls.py',
    'from django.urls import path\n\nfrom . import views\n\napp_name = "polls"\nurlpatterns = [\n    path("<int:pk>/", views.DetailView.as_view(), name="detail"),\n    path("<int:question_id>/vote/", views.vote, name="vote"),\n]\n',
  );
  write(
    'site/polls/views.py',
    'from django.views import generic\n\n\nclass DetailView(generic.DetailView):\n    pass\n\n\ndef vote(request, question_id):\n    return None\n',
  );
  write(
    'flaskapp/app.py',
    'from flask import Blueprint, Flask\n\napp = Flask(__name__)\nbp = Blueprint("shop", __name__, url_prefix="/shop")\n\n\ndef show_user(username):\n    return username\n\n\ndef cart():\n    return ""\n\n\napp.add_url_rule("/user/<username>", view_func=show_user)\nbp.add_url_rule("/cart", "cart", cart, methods=["GET", "POST"])\napp.add_url_rule("/static-only", endpoint="static")\n',
  );
  write(
    'koa/app.js',
    "const Koa = require('koa');\nconst Router = require('@koa/router');\n\nconst app = new Koa();\nconst router = new Router({ prefix: '/api' });\nconst plain = new Router();\n\nrouter.post('/users', createUser);\nplain.get('/health', health);\n\nasync function createUser(ctx) {}\nasync function health(ctx) {}\n\napp.use(router.routes()).use(plain.routes());\n",
  );
  write(
    'edge/api.ts',
    "import { Hono } from 'hono';\n\nconst api = new Hono().basePath('/api');\napi.get('/ping', ping);\nfunction ping(c) { return c.text('pong'); }\nexport default api;\n",
  );
  await index(async (g) => {
    assert.deepEqual(await routeLines(g), [
      'GET /api/ping [hono] -> ping',
      'GET /user/<username> [flask] -> show_user',
      'GET /shop/cart [flask] -> cart',
      'POST /shop/cart [flask] -> cart',
      'POST /api/users [koa] -> createUser',
      'GET /health [koa] -> health',
      'ANY /admin/ [django] -> urls',
      'ANY /polls/<int:pk>/ [django] -> DetailView',
      'ANY /polls/<int:question_id>/vote/ [django] -> vote',
    ]);
  });
});
