// TypeScript and JavaScript: HTTP routes (Express, Fastify, Koa, Hono `app.get(…)`, `app.route('/x').get(…)`,
// route objects `{method, url|path, handler}`, NestJS decorators, Next.js route files; mounts with their
// prefixes: `app.use('/api', router)`, Fastify's `app.register(plugin, { prefix: '/v1' })`, Koa's
// `new Router({ prefix })`, Hono's `basePath`), MCP tools
// (`registerTool`, `server.tool`, `addTool({name, execute})`, `define…Tool({name, handler})`), CLI commands
// (commander `.command().action()`, yargs `.command(…, handler)`), and event handlers (`on`, `once`,
// `addListener`, `addEventListener`).
import type { Tree } from 'web-tree-sitter';
import {
  type HandlerRef,
  HTTP_METHODS,
  joinRoute,
  type Node,
  parameterType,
  routeName,
  type SurfaceBuilder,
  stringValue,
} from './common.ts';

const FUNCTION_NODES = new Set([
  'function_declaration',
  'generator_function_declaration',
  'method_definition',
  'arrow_function',
  'function_expression',
  'function',
]);
const FUNCTIONS = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const ROUTE_METHODS = new Map<string, string | null>([
  ...HTTP_METHODS.map((m) => [m.toLowerCase(), m] as [string, string]),
  ['del', 'DELETE'],
  ['all', null],
]);
/**
 * Receivers that read as a router where no HTTP framework is imported (`cache.get('/key', fallback)` is
 * not a route; `app.get('/x', h)` in a file handed the app is).
 */
const ROUTER_NAME =
  /(^|\.)(app|api|router|routes?|server|fastify|instance|r|v\d+|\w*(Router|App|Server|Routes))$/;
const EVENT_METHODS = new Set(['on', 'once', 'addListener', 'addEventListener', 'prependListener']);
const NEST_METHODS = new Map<string, string | null>([
  ...HTTP_METHODS.map((m) => [m[0] + m.slice(1).toLowerCase(), m] as [string, string]),
  ['All', null],
]);

/**
 * Where a registration can be: the member called (`.get(`, `.on(`, …) or a tool definition, found in the
 * text first, so a file is read only at those sites (a walk over every call of a file cost as much as
 * its whole extraction).
 */
const CALL_SITE =
  /\.\s*(get|post|put|patch|delete|del|head|options|all|registerTool|tool|command|on|once|addListener|addEventListener|prependListener)\s*(?:<[^()]*?>\s*)?\(\s*['"`]|\.\s*(addTool|command)\s*\(\s*\{|\b(define\w*Tool)\s*\(\s*\{/g;
/** `app.use('/api', router)`, Hono's `app.route('/api', sub)`: where a router is mounted. */
const MOUNT_SITE = /\.\s*(use|route)\s*\(\s*['"`]\//g;
/** Fastify's `app.register(plugin, { prefix: '/v1' })`: a plugin whose routes are served under the prefix. */
const REGISTER_SITE = /\.\s*(register)\s*\(/g;
/**
 * A router made with its prefix: Koa's `const router = new Router({ prefix: '/api' })`, Hono's
 * `const api = new Hono().basePath('/api')`.
 */
const ROUTER_PREFIX =
  /\b(?:const|let|var)\s+([\w$]+)\s*=\s*new\s+(?:[\w$.]*Router\s*\(\s*\{[^{}]*?\bprefix\s*:\s*|Hono\s*(?:<[^()]*?>\s*)?\([^()]*\)\s*\.\s*basePath\s*\(\s*)(['"`])(\/[^'"`$]*)\2/g;
/** `app.route('/x')`: the head of a chain of `.get(h)`/`.post(h)`. */
const CHAIN_HEAD = /\.\s*route\s*\(\s*['"`]/g;
const NEST = /@(Controller|MessagePattern|EventPattern|OnEvent)\b/;

/** The call whose callee is the identifier at `at` (`x.name(…)` or `name(…)`). */
function callAt(root: Node, at: number, length: number): Node | undefined {
  const id = root.descendantForIndex(at, at + length);
  const callee = id?.parent?.type === 'member_expression' ? id.parent : id;
  const call = callee?.parent;
  if (call?.type !== 'call_expression' || call.childForFieldName('function')?.id !== callee?.id)
    return undefined;
  return call;
}

export function recogniseJavaScript(s: SurfaceBuilder, tree: Tree): void {
  const root = tree.rootNode;
  const text = s.text;
  let fw: string | undefined;
  const framework = () => {
    fw ??= httpFramework(s);
    return fw;
  };
  // Plugins registered with a prefix: those of another module are mounts (below); a function of this file
  // (inline, or declared and named) serves the routes registered inside it under the prefix.
  const plugins = new Map<string, string>();
  let inlinePlugins = false;
  for (const m of text.matchAll(REGISTER_SITE)) {
    const call = callAt(root, (m.index ?? 0) + m[0].indexOf('register'), 8);
    const args = argumentsOf(call);
    const prefix = pluginOptionsPrefix(args[1]);
    const target = args[0];
    if (prefix === undefined || !target) continue;
    if (FUNCTIONS.has(target.type)) inlinePlugins = true;
    else if (target.type === 'identifier' && !s.imported(target.text)) plugins.set(target.text, prefix);
    else mountTarget(s, prefix, target);
  }
  const routers = new Map<string, string>();
  for (const m of text.matchAll(ROUTER_PREFIX)) if (m[1] && m[3]) routers.set(m[1], m[3]);
  const inPlugins =
    plugins.size > 0 || inlinePlugins
      ? (at: Node, path: string) => joinRoute(pluginPrefix(at, plugins), path)
      : (_at: Node, path: string) => path;
  const served: Served = (at, path, receiver) => {
    const own = receiver === undefined ? undefined : routers.get(receiver);
    return inPlugins(at, own === undefined ? path : joinRoute(own, path));
  };
  const calls = new Set<number>();
  const visit = (call: Node | undefined) => {
    // By node id: chained calls (`y.command(…).command(…)`) share their start.
    if (!call || calls.has(call.id)) return;
    calls.add(call.id);
    callEntry(s, call, framework(), served);
  };
  for (const m of text.matchAll(CALL_SITE)) {
    const name = m[1] ?? m[2] ?? m[3] ?? '';
    visit(callAt(root, (m.index ?? 0) + m[0].indexOf(name), name.length));
  }
  for (const m of text.matchAll(MOUNT_SITE)) {
    const name = m[1] ?? '';
    const call = callAt(root, (m.index ?? 0) + m[0].indexOf(name), name.length);
    const args = argumentsOf(call);
    const prefix = stringValue(args[0]);
    // app.use('/api', auth, router), app.use('/api', router.routes()), app.route('/api', sub) (Hono),
    // app.use('/api', require('./routes')).
    let target = args.length >= 2 ? args[args.length - 1] : undefined;
    if (
      target?.type === 'call_expression' &&
      (target.childForFieldName('arguments')?.namedChildCount ?? 1) === 0
    ) {
      const fn = target.childForFieldName('function');
      target = fn?.type === 'member_expression' ? (fn.childForFieldName('object') ?? undefined) : undefined;
    }
    if (prefix?.startsWith('/') && target) mountTarget(s, prefix, target);
  }
  for (const m of text.matchAll(CHAIN_HEAD)) {
    // Up the chain: each `.get(h)` called on it is a route of that path.
    let at = callAt(root, (m.index ?? 0) + m[0].indexOf('route'), 5);
    for (let i = 0; at && i < 20; i++) {
      const member = at.parent;
      const outer = member?.type === 'member_expression' ? member.parent : undefined;
      if (outer?.type !== 'call_expression') break;
      visit(outer);
      at = outer;
    }
  }
  // Route objects: `{ method, url, handler }`, found by their handler.
  const objects = new Set<number>();
  for (const m of text.matchAll(/\bhandler\b/g)) {
    const id = root.descendantForIndex(m.index ?? 0, (m.index ?? 0) + 7);
    const member = id?.parent;
    const obj = id?.type === 'shorthand_property_identifier' ? member : member?.parent;
    if (obj?.type !== 'object' || objects.has(obj.id)) continue;
    objects.add(obj.id);
    routeObject(s, obj, framework(), served);
  }
  if (NEST.test(text))
    for (const cls of root.descendantsOfType(['class_declaration', 'abstract_class_declaration']))
      if (cls) nestController(s, cls);
  nextRoutes(s, root);
}

/** The arguments of a call, comments aside (none for no call). */
function argumentsOf(call: Node | undefined): Node[] {
  return (call?.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (a): a is Node => !!a && a.type !== 'comment',
  );
}

/** The `prefix` of a plugin's options (`{ prefix: '/v1' }`), when it is a literal path. */
function pluginOptionsPrefix(options: Node | undefined): string | undefined {
  if (options?.type !== 'object') return undefined;
  const prefix = stringValue(objectPairs(options).get('prefix'));
  return prefix?.startsWith('/') ? prefix : undefined;
}

/** A mount of `target`: a router or plugin by name (its import found later), or a module required inline. */
function mountTarget(s: SurfaceBuilder, prefix: string, target: Node): void {
  if (target.type === 'identifier' || target.type === 'member_expression') {
    s.mount(prefix, target.text);
    return;
  }
  // require('./routes'), import('./routes.js'), await import('./routes.js')
  const call = target.type === 'await_expression' ? target.namedChildren[0] : target;
  if (call?.type !== 'call_expression') return;
  const fn = call.childForFieldName('function');
  if (fn?.type !== 'import' && !(fn?.type === 'identifier' && fn.text === 'require')) return;
  const args = argumentsOf(call);
  const module = args.length === 1 ? stringValue(args[0]) : undefined;
  if (module?.startsWith('.')) s.mount(prefix, 'require', module);
}

/**
 * The prefix the plugins around `at` serve it under, outermost first: functions registered inline with
 * a prefix (`app.register(async (f) => { f.get('/x', h) }, { prefix: '/v1' })`) and this file's named
 * plugin functions (`plugins`, from `app.register(routes, { prefix: '/v1' })`).
 */
function pluginPrefix(at: Node, plugins: ReadonlyMap<string, string>): string {
  let prefix = '';
  for (let n = at.parent; n; n = n.parent) {
    let p: string | undefined;
    if (FUNCTIONS.has(n.type)) {
      p = inlinePluginPrefix(n);
      if (p === undefined && n.parent?.type === 'variable_declarator')
        p = plugins.get(n.parent.childForFieldName('name')?.text ?? '');
    } else if (n.type === 'function_declaration' || n.type === 'generator_function_declaration')
      p = plugins.get(n.childForFieldName('name')?.text ?? '');
    if (p !== undefined) prefix = joinRoute(p, prefix);
  }
  return prefix;
}

/** The prefix of `x.register(fn, { prefix })` where `fn` is this function, written as the first argument. */
function inlinePluginPrefix(fn: Node): string | undefined {
  const list = fn.parent;
  if (list?.type !== 'arguments') return undefined;
  const call = list.parent;
  const callee = call?.childForFieldName('function');
  if (callee?.type !== 'member_expression' || callee.childForFieldName('property')?.text !== 'register')
    return undefined;
  const args = argumentsOf(call ?? undefined);
  return args[0]?.id === fn.id ? pluginOptionsPrefix(args[1]) : undefined;
}

function httpFramework(s: SurfaceBuilder): string {
  if (s.imports(/['"]fastify['"]/)) return 'fastify';
  if (s.imports(/['"]hono(\/[^'"]*)?['"]/)) return 'hono';
  if (s.imports(/['"](koa|@koa\/router|koa-router)['"]/)) return 'koa';
  if (s.imports(/['"]express['"]/)) return 'express';
  // A Fastify plugin's file often imports nothing of Fastify: it is handed the instance, named so.
  if (/\bfastify\s*\.\s*(get|post|put|patch|delete|head|options|all|route|register)\s*[(<]/.test(s.text))
    return 'fastify';
  return 'http';
}

/** The handler an argument names: a function written inline belongs to the declaration it is in. */
export function handlerOf(s: SurfaceBuilder, arg: Node | null | undefined): HandlerRef {
  if (!arg) return null;
  if (arg.type === 'identifier') return { name: arg.text };
  if (arg.type === 'member_expression') {
    const t = arg.text.replace(/\s+/g, '');
    if (!/^[\w$.]+$/.test(t)) return null;
    const object = arg.childForFieldName('object');
    const recvType =
      object?.type === 'identifier' ? parameterType(arg, object.text, FUNCTION_NODES) : undefined;
    return recvType ? { name: t, recvType } : { name: t };
  }
  if (FUNCTIONS.has(arg.type)) {
    const line = arg.startPosition.row + 1;
    const named = arg.childForFieldName('name')?.text;
    return s.local(named ? (s.declaredAt(line, named) ?? s.enclosing(line)) : s.enclosing(line));
  }
  // `wrap(handler)`, `asyncHandler(async (req, res) => …)`: the innermost function argument.
  if (arg.type === 'call_expression') {
    const args = arg.childForFieldName('arguments')?.namedChildren ?? [];
    const last = args[args.length - 1];
    return last ? handlerOf(s, last) : null;
  }
  return null;
}

const isCallable = (n: Node | null | undefined) =>
  !!n &&
  (FUNCTIONS.has(n.type) ||
    n.type === 'identifier' ||
    n.type === 'member_expression' ||
    n.type === 'call_expression');

/**
 * A route's path as served: the prefix of the router it is registered on (when the file made it with
 * one) and of the plugins of this file it is registered in applied.
 */
type Served = (at: Node, path: string, receiver?: string) => string;

function callEntry(s: SurfaceBuilder, call: Node, framework: string, served: Served): void {
  const fn = call.childForFieldName('function');
  const args = argumentsOf(call);
  if (!fn) return;
  if (fn.type === 'identifier') {
    if (/^define\w*Tool$/.test(fn.text) && args[0]?.type === 'object') toolDefinition(s, call, args[0]);
    return;
  }
  if (fn.type !== 'member_expression') return;
  const prop = fn.childForFieldName('property')?.text ?? '';
  const object = fn.childForFieldName('object');
  const first = stringValue(args[0]);
  const last = args[args.length - 1];

  // app.get('/orders', auth, handler); router.get('name', '/orders', handler) (Koa's named routes).
  const method = ROUTE_METHODS.get(prop);
  if (
    method !== undefined &&
    first !== undefined &&
    args.length >= 2 &&
    isCallable(last) &&
    (framework !== 'http' || ROUTER_NAME.test(object?.text ?? ''))
  ) {
    const named = stringValue(args[1]);
    const written =
      first.startsWith('/') || first === '*' ? first : named?.startsWith('/') ? named : undefined;
    if (written !== undefined) {
      const path = served(call, written, object?.type === 'identifier' ? object.text : undefined);
      s.add({
        kind: 'route',
        method,
        path,
        name: routeName(method, path),
        framework,
        at: call,
        handler: handlerOf(s, last),
        ...(object && (object.type === 'identifier' || object.type === 'member_expression')
          ? { receiver: object.text }
          : {}),
      });
      return;
    }
  }
  // app.route('/book').get(h).post(h): Express's chained form.
  if (method !== undefined && args.length >= 1 && isCallable(last) && object?.type === 'call_expression') {
    const written = chainedRoute(object);
    if (written !== undefined) {
      const path = served(call, written);
      s.add({
        kind: 'route',
        method,
        path,
        name: routeName(method, path),
        framework,
        at: call,
        handler: handlerOf(s, last),
      });
      return;
    }
  }
  // server.registerTool('name', {…}, handler); server.tool('name', 'description', schema, handler)
  if ((prop === 'registerTool' || prop === 'tool') && first !== undefined && args.length >= 2) {
    if (/^[\w.\-/]{1,128}$/.test(first) && isCallable(last) && last !== args[0]) {
      s.add({
        kind: 'mcp_tool',
        method: null,
        path: null,
        name: first,
        framework: 'mcp',
        at: call,
        handler: handlerOf(s, last),
      });
      return;
    }
  }
  // FastMCP (TypeScript): server.addTool({ name, execute })
  if (prop === 'addTool' && args[0]?.type === 'object') {
    const pairs = objectPairs(args[0]);
    const name = stringValue(pairs.get('name'));
    if (name) {
      s.add({
        kind: 'mcp_tool',
        method: null,
        path: null,
        name,
        framework: 'fastmcp',
        at: call,
        handler: handlerOf(s, pairs.get('execute') ?? pairs.get('handler')),
      });
      return;
    }
  }
  if (prop === 'command' && args.length >= 1) {
    commandEntry(s, call, args);
    return;
  }
  if (EVENT_METHODS.has(prop) && first !== undefined && args.length >= 2 && isCallable(args[1])) {
    if (/^[\w:.\-/ ]{1,100}$/.test(first)) {
      s.add({
        kind: 'event_handler',
        method: null,
        path: null,
        name: first,
        framework: prop === 'addEventListener' ? 'dom' : 'events',
        at: call,
        handler: handlerOf(s, args[1]),
      });
    }
  }
}

/** The path of `x.route('/p')` at the head of a chain of `.get(…)`/`.post(…)` calls, if it is one. */
function chainedRoute(call: Node): string | undefined {
  for (let at: Node | null = call; at?.type === 'call_expression'; ) {
    const fn: Node | null = at.childForFieldName('function');
    if (fn?.type !== 'member_expression') return undefined;
    const prop = fn.childForFieldName('property')?.text ?? '';
    if (prop === 'route') {
      const p = stringValue(at.childForFieldName('arguments')?.namedChildren[0]);
      return p?.startsWith('/') ? p : undefined;
    }
    if (!ROUTE_METHODS.has(prop)) return undefined;
    at = fn.childForFieldName('object');
  }
  return undefined;
}

/**
 * commander: `program.command('serve <dir>').description(…).action(fn)`; yargs:
 * `yargs.command('serve [port]', 'desc', builder, handler)` or `.command({ command, handler })`.
 */
function commandEntry(s: SurfaceBuilder, call: Node, args: Node[]): void {
  const commanderish = s.imports(/['"]commander['"]/);
  let spec = stringValue(args[0]);
  let handler: HandlerRef = null;
  let framework = commanderish ? 'commander' : 'yargs';
  if (args[0]?.type === 'object') {
    const pairs = objectPairs(args[0]);
    spec = stringValue(pairs.get('command'));
    handler = handlerOf(s, pairs.get('handler'));
    framework = 'yargs';
  } else if (spec !== undefined) {
    const last = args[args.length - 1];
    if (args.length >= 2 && last && FUNCTIONS.has(last.type)) {
      handler = handlerOf(s, last);
      framework = 'yargs';
    } else if (args.length >= 3 && isCallable(last) && !commanderish) {
      handler = handlerOf(s, last);
    } else {
      // Up the chain to `.action(fn)`.
      framework = commanderish || !s.imports(/['"]yargs['"]/) ? 'commander' : 'yargs';
      for (let at: Node | null = call; at; ) {
        const member: Node | null = at.parent;
        if (member?.type !== 'member_expression') break;
        const outer: Node | null = member.parent;
        if (outer?.type !== 'call_expression') break;
        const p = member.childForFieldName('property')?.text;
        if (p === 'command') break;
        if (p === 'action') {
          handler = handlerOf(s, outer.childForFieldName('arguments')?.namedChildren[0]);
          break;
        }
        at = outer;
      }
    }
  }
  const name = spec?.trim().split(/\s+/)[0];
  if (!name || !/^[\w:.\-$*]{1,100}$/.test(name)) return;
  // `.command('GET')` of a client library: a CLI command only with a CLI library or a handler.
  if (!handler && !s.imports(/['"](commander|yargs|yargs\/yargs|cac|sade)['"]/)) return;
  s.add({ kind: 'cli_command', method: null, path: null, name, framework, at: call, handler });
}

function objectPairs(obj: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const c of obj.namedChildren) {
    if (!c) continue;
    if (c.type === 'pair') {
      const k = c.childForFieldName('key');
      const v = c.childForFieldName('value');
      const key = k ? (stringValue(k) ?? k.text) : undefined;
      if (key && v) out.set(key, v);
    } else if (c.type === 'method_definition') {
      const k = c.childForFieldName('name')?.text;
      if (k) out.set(k, c);
    } else if (c.type === 'shorthand_property_identifier') out.set(c.text, c);
  }
  return out;
}

/** A handler given as an object member: `handler: fn`, `handler() {…}`, or the shorthand `{ handler }`. */
function memberHandler(s: SurfaceBuilder, v: Node | undefined): HandlerRef {
  if (!v) return null;
  if (v.type === 'shorthand_property_identifier') return { name: v.text };
  if (v.type === 'method_definition') return s.local(s.enclosing(v.startPosition.row + 1));
  return handlerOf(s, v);
}

/** `{ method: 'POST', url: '/orders', handler }` (Fastify's route options, hapi's, many routers'). */
function routeObject(s: SurfaceBuilder, obj: Node, framework: string, served: Served): void {
  const pairs = objectPairs(obj);
  const handler = pairs.get('handler');
  const rawMethod = pairs.get('method');
  const written = stringValue(pairs.get('url') ?? pairs.get('path'));
  if (!handler || !rawMethod || written === undefined || !written.startsWith('/')) return;
  const path = served(obj, written);
  if (obj.parent?.type === 'arguments' && /^define\w*Tool$/.test(obj.parent.parent?.firstChild?.text ?? ''))
    return;
  const methods =
    rawMethod.type === 'array'
      ? rawMethod.namedChildren.map((m) => stringValue(m))
      : [stringValue(rawMethod) ?? (rawMethod.type === 'shorthand_property_identifier' ? undefined : '*')];
  for (const m of methods) {
    if (m === undefined) continue;
    const method = m === '*' ? null : m.toUpperCase();
    s.add({
      kind: 'route',
      method,
      path,
      name: routeName(method, path),
      framework,
      at: obj,
      handler: memberHandler(s, handler),
    });
  }
}

/** A tool registry of the `define…Tool({ name, handler, http: { method, path } })` kind (this hub's own). */
function toolDefinition(s: SurfaceBuilder, call: Node, obj: Node): void {
  const pairs = objectPairs(obj);
  const name = stringValue(pairs.get('name'));
  const body = pairs.get('handler') ?? pairs.get('execute') ?? pairs.get('run');
  if (!name || !body) return;
  const handler = memberHandler(s, body);
  s.add({ kind: 'mcp_tool', method: null, path: null, name, framework: 'tool-registry', at: call, handler });
  const http = pairs.get('http');
  if (http?.type !== 'object') return;
  const route = objectPairs(http);
  const method = stringValue(route.get('method'))?.toUpperCase() ?? null;
  const path = stringValue(route.get('path') ?? route.get('url'));
  if (path?.startsWith('/'))
    s.add({
      kind: 'route',
      method,
      path,
      name: routeName(method, path),
      framework: 'tool-registry',
      at: call,
      handler,
    });
}

/** The decorator's name and first string argument: `@Get(':id')` → ['Get', ':id']. */
function decoratorOf(d: Node): [string, string | undefined, Node | undefined] | undefined {
  const e = d.namedChildren[0];
  if (!e) return undefined;
  if (e.type === 'identifier') return [e.text, undefined, undefined];
  if (e.type !== 'call_expression') return undefined;
  const fn = e.childForFieldName('function');
  const name = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : fn?.text;
  const arg = e.childForFieldName('arguments')?.namedChildren[0] ?? undefined;
  return name ? [name, stringValue(arg), arg] : undefined;
}

function nestController(s: SurfaceBuilder, cls: Node): void {
  let prefix: string | undefined;
  // `@Controller('x') export class …`: the decorator belongs to the export statement.
  const holders =
    cls.parent?.type === 'export_statement' ? [...cls.parent.children, ...cls.children] : cls.children;
  for (const c of holders) {
    if (c?.type !== 'decorator') continue;
    const d = decoratorOf(c);
    if (d?.[0] !== 'Controller') continue;
    prefix = d[1] ?? '';
    if (d[2]?.type === 'object') prefix = stringValue(objectPairs(d[2]).get('path')) ?? '';
  }
  const body = cls.childForFieldName('body');
  if (!body) return;
  // Decorators of a method come before it in the class body (TypeScript) or inside it (JavaScript).
  let pending: Node[] = [];
  for (const m of body.namedChildren) {
    if (!m) continue;
    if (m.type === 'decorator') {
      pending.push(m);
      continue;
    }
    if (m.type !== 'method_definition') {
      pending = [];
      continue;
    }
    const decorators = [...pending, ...m.namedChildren.filter((c): c is Node => c?.type === 'decorator')];
    pending = [];
    const mname = m.childForFieldName('name')?.text;
    const handler = s.local(
      s.declaredAt(m.startPosition.row + 1, mname) ?? s.enclosing(m.startPosition.row + 1),
    );
    for (const dn of decorators) {
      const d = decoratorOf(dn);
      if (!d) continue;
      const [dname, arg] = d;
      if (prefix !== undefined && NEST_METHODS.has(dname)) {
        const method = NEST_METHODS.get(dname) ?? null;
        const path = joinRoute(`/${prefix.replace(/^\/+/, '')}`, arg ?? '');
        s.add({
          kind: 'route',
          method,
          path: path || '/',
          name: routeName(method, path || '/'),
          framework: 'nestjs',
          at: m,
          handler,
        });
      } else if ((dname === 'MessagePattern' || dname === 'EventPattern' || dname === 'OnEvent') && arg) {
        s.add({
          kind: 'event_handler',
          method: null,
          path: null,
          name: arg,
          framework: 'nestjs',
          at: m,
          handler,
        });
      }
    }
  }
}

const NEXT_APP_ROUTE = /(?:^|\/)app\/(.*?)\/?route\.[cm]?[jt]sx?$/;
const NEXT_PAGES_API = /(?:^|\/)pages\/(api\/.*)\.[cm]?[jt]sx?$/;

/** The URL of a Next.js route file: route groups `(x)` and private folders leave the path. */
function nextPath(dir: string): string {
  const parts = dir.split('/').filter((p) => p !== '' && !/^\(.*\)$/.test(p) && !p.startsWith('@'));
  return `/${parts.join('/')}`;
}

function nextRoutes(s: SurfaceBuilder, root: Node): void {
  const app = NEXT_APP_ROUTE.exec(s.path);
  const pages = app ? null : NEXT_PAGES_API.exec(s.path);
  if (!app && !pages) return;
  if (s.path.includes('node_modules/')) return;
  for (const ex of root.namedChildren) {
    if (ex?.type !== 'export_statement') continue;
    const decl = ex.childForFieldName('declaration');
    const isDefault = ex.children.some((c) => c?.type === 'default');
    const names: { name: string; at: Node }[] = [];
    if (decl?.type === 'function_declaration' || decl?.type === 'generator_function_declaration') {
      const n = decl.childForFieldName('name')?.text;
      if (n) names.push({ name: isDefault ? 'default' : n, at: decl });
      else if (isDefault) names.push({ name: 'default', at: decl });
    } else if (decl?.type === 'lexical_declaration') {
      for (const v of decl.namedChildren) {
        const n = v?.type === 'variable_declarator' ? v.childForFieldName('name')?.text : undefined;
        if (n && v) names.push({ name: n, at: v });
      }
    } else if (isDefault) names.push({ name: 'default', at: ex });
    for (const { name, at } of names) {
      const line = at.startPosition.row + 1;
      const node = s.declaredAt(line) ?? s.enclosing(line);
      if (app && HTTP_METHODS.includes(name as (typeof HTTP_METHODS)[number])) {
        const path = nextPath(app[1] ?? '');
        s.add({
          kind: 'route',
          method: name,
          path,
          name: routeName(name, path),
          framework: 'nextjs',
          at: ex,
          handler: s.local(node),
        });
      } else if (pages && name === 'default') {
        const path = nextPath((pages[1] ?? '').replace(/(^|\/)index$/, ''));
        s.add({
          kind: 'route',
          method: null,
          path,
          name: routeName(null, path),
          framework: 'nextjs',
          at: ex,
          handler: s.local(node),
        });
      }
    }
  }
}
