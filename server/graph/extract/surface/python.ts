// Python: Flask and FastAPI routes (`@app.route`, `@app.get`, `app.add_url_rule`, blueprints and routers
// with their prefix), Django `urlpatterns` (and `include('app.urls')` as a mount), FastMCP tools
// (`@mcp.tool`), click and typer commands (`@click.command`, `@group.command`, `@app.command`),
// argparse sub-commands (`add_parser` with `set_defaults(func=…)`), event handlers (`@x.on('…')`,
// `@app.on_event('…')`), and the `if __name__ == "__main__":` entry point.
import type { Tree } from 'web-tree-sitter';
import {
  type HandlerRef,
  HTTP_METHODS,
  joinRoute,
  type Node,
  routeName,
  type SurfaceBuilder,
  stringValue,
} from './common.ts';

const ROUTE_DECORATORS = new Map<string, string | null>([
  ...HTTP_METHODS.map((m) => [m.toLowerCase(), m] as [string, string]),
  ['websocket', 'WS'],
]);

export function recognisePython(s: SurfaceBuilder, tree: Tree): void {
  const root = tree.rootNode;
  const text = s.text;
  if (text.includes('urlpatterns')) djangoUrls(s, root);
  if (text.includes('add_parser')) argparse(s, root);
  if (/__name__/.test(text))
    for (const ifs of root.namedChildren) {
      if (ifs?.type !== 'if_statement') continue;
      const cond = ifs.childForFieldName('condition')?.text.replace(/\s+/g, '').replaceAll("'", '"');
      if (cond === '__name__=="__main__"' || cond === '"__main__"==__name__')
        s.markEntry(s.fileNode, 'python_main');
    }
  // app.include_router(items.router, prefix='/items'); app.register_blueprint(admin, url_prefix='/admin')
  for (const m of text.matchAll(/\.\s*(include_router|register_blueprint)\s*\(/g)) {
    const name = m[1] ?? '';
    const at = (m.index ?? 0) + m[0].indexOf(name);
    const id = root.descendantForIndex(at, at + name.length);
    const call = id?.parent?.type === 'attribute' ? id.parent.parent : null;
    if (call?.type !== 'call') continue;
    const args = call.childForFieldName('arguments');
    const target = args?.namedChildren[0];
    const prefix = stringValue(keyword(args, name === 'include_router' ? 'prefix' : 'url_prefix'));
    if (prefix?.startsWith('/') && (target?.type === 'identifier' || target?.type === 'attribute'))
      s.mount(prefix, target.text);
  }
  const decorators = /^\s*@/m.test(text);
  const rules = text.includes('add_url_rule');
  if (!decorators && !rules) return;
  const prefixes = /\b(Blueprint|APIRouter)\s*\(/.test(text)
    ? routerPrefixes(root)
    : new Map<string, string>();
  if (rules) addUrlRules(s, root, prefixes);
  if (!decorators) return;
  const fastapi = s.imports(/^\s*(from|import)\s+(fastapi|starlette)\b/m);
  const typer = s.imports(/^\s*(from|import)\s+typer\b/m);
  for (const dd of root.descendantsOfType('decorated_definition')) {
    if (!dd) continue;
    const def = dd.childForFieldName('definition');
    if (def?.type !== 'function_definition') continue;
    const fname = def.childForFieldName('name')?.text ?? '';
    const line = def.startPosition.row + 1;
    // Looked up only for a decorator that registers something (most are @property, @dataclass, …).
    const handler = () => s.local(s.declaredAt(line, fname) ?? s.enclosing(line));
    for (const d of dd.namedChildren) {
      if (d?.type !== 'decorator') continue;
      decorated(s, dd, d, fname, handler, prefixes, fastapi, typer);
    }
  }
}

/** `bp = Blueprint('x', __name__, url_prefix='/x')`, `router = APIRouter(prefix='/items')`. */
function routerPrefixes(root: Node): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of root.descendantsOfType('assignment')) {
    const left = a?.childForFieldName('left');
    const right = a?.childForFieldName('right');
    if (left?.type !== 'identifier' || right?.type !== 'call') continue;
    const callee = right.childForFieldName('function')?.text.split('.').pop();
    if (callee !== 'Blueprint' && callee !== 'APIRouter') continue;
    for (const kw of right.childForFieldName('arguments')?.namedChildren ?? []) {
      if (kw?.type !== 'keyword_argument') continue;
      const k = kw.childForFieldName('name')?.text;
      if (k === 'url_prefix' || k === 'prefix') {
        const v = stringValue(kw.childForFieldName('value'));
        if (v !== undefined) out.set(left.text, v);
      }
    }
  }
  return out;
}

/** `methods=['GET', 'POST']` as methods; without the keyword, `fallback` (null: any method). */
function listedMethods(listed: Node | undefined, fallback: string | null): (string | null)[] {
  if (!listed) return [fallback];
  const methods = listed.namedChildren
    .map((m) => stringValue(m)?.toUpperCase())
    .filter((m): m is string => !!m);
  return methods.length > 0 ? methods : [null];
}

function keyword(args: Node | null | undefined, name: string): Node | undefined {
  for (const kw of args?.namedChildren ?? [])
    if (kw?.type === 'keyword_argument' && kw.childForFieldName('name')?.text === name)
      return kw.childForFieldName('value') ?? undefined;
  return undefined;
}

function decorated(
  s: SurfaceBuilder,
  at: Node,
  d: Node,
  fname: string,
  handler: () => HandlerRef,
  prefixes: Map<string, string>,
  fastapi: boolean,
  typer: boolean,
): void {
  const expr = d.namedChildren[0];
  if (!expr) return;
  const call = expr.type === 'call' ? expr : null;
  const callee = call ? call.childForFieldName('function') : expr;
  if (callee?.type !== 'attribute' && callee?.type !== 'identifier') return;
  const attr =
    callee.type === 'attribute' ? (callee.childForFieldName('attribute')?.text ?? '') : callee.text;
  const owner = callee.type === 'attribute' ? (callee.childForFieldName('object')?.text ?? '') : '';
  const args = call?.childForFieldName('arguments');
  const first = args?.namedChildren[0];
  const firstString = first?.type === 'keyword_argument' ? undefined : stringValue(first);

  if (
    owner &&
    (attr === 'route' || attr === 'api_route' || ROUTE_DECORATORS.has(attr)) &&
    firstString !== undefined
  ) {
    const methods =
      attr === 'route' || attr === 'api_route'
        ? listedMethods(keyword(args, 'methods'), attr === 'route' ? 'GET' : null)
        : [ROUTE_DECORATORS.get(attr) ?? null];
    addRoutes(s, prefixes, {
      owner,
      receiver: owner,
      rule: firstString,
      methods,
      framework: fastapi ? 'fastapi' : 'flask',
      at,
      handler: handler(),
    });
    return;
  }
  if (owner && attr === 'tool') {
    const name = stringValue(keyword(args, 'name')) ?? firstString ?? fname;
    s.add({ kind: 'mcp_tool', method: null, path: null, name, framework: 'fastmcp', at, handler: handler() });
    return;
  }
  if (attr === 'command' || attr === 'group') {
    // click names a command after its function with `_` as `-` (click 7+); typer does the same.
    const name = stringValue(keyword(args, 'name')) ?? firstString ?? fname.replace(/_/g, '-');
    const framework = typer && owner !== 'click' ? 'typer' : 'click';
    if (owner || callee.type === 'identifier')
      s.add({ kind: 'cli_command', method: null, path: null, name, framework, at, handler: handler() });
    return;
  }
  if (
    owner &&
    (attr === 'on' || attr === 'on_event' || attr === 'event') &&
    (firstString || attr === 'event')
  ) {
    const name = firstString ?? fname;
    s.add({
      kind: 'event_handler',
      method: null,
      path: null,
      name,
      framework: 'events',
      at,
      handler: handler(),
    });
  }
}

/** `urlpatterns = [path('orders/<int:pk>/', views.detail), re_path(r'^x/$', View.as_view())]`. */
function djangoUrls(s: SurfaceBuilder, root: Node): void {
  for (const a of root.descendantsOfType(['assignment', 'augmented_assignment'])) {
    if (a?.childForFieldName('left')?.text !== 'urlpatterns') continue;
    const right = a.childForFieldName('right');
    if (!right) continue;
    for (const call of right.descendantsOfType('call')) {
      const fn = call?.childForFieldName('function')?.text.split('.').pop();
      if (!call || (fn !== 'path' && fn !== 're_path' && fn !== 'url')) continue;
      const args = call.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => !!x) ?? [];
      const route = stringValue(args[0]);
      const view = args[1];
      if (route === undefined || !view) continue;
      if (view.type === 'call' && view.childForFieldName('function')?.text.split('.').pop() === 'include') {
        // path('polls/', include('polls.urls')): that module's urlpatterns are served under the prefix.
        const module = stringValue(view.childForFieldName('arguments')?.namedChildren[0]);
        if (module && /^[\w.]+$/.test(module)) s.mount(djangoPath(route), 'include', module);
        continue;
      }
      const handler = viewHandler(view);
      const path = djangoPath(route);
      s.add({
        kind: 'route',
        method: null,
        path,
        name: routeName(null, path),
        framework: 'django',
        at: call,
        handler,
      });
    }
  }
}

/** The handler a view names: a function (`views.vote`), or the class of `OrderView.as_view(…)`. */
function viewHandler(view: Node): HandlerRef {
  if (view.type === 'identifier' || view.type === 'attribute') return { name: view.text };
  if (view.type !== 'call') return null;
  const f = view.childForFieldName('function');
  const obj = f?.type === 'attribute' ? f.childForFieldName('object') : null;
  return obj && (obj.type === 'identifier' || obj.type === 'attribute') ? { name: obj.text } : null;
}

/** A Django route as a path (`orders/<int:pk>/`, `r'^x/$'` → `/orders/<int:pk>/`, `/x/`). */
function djangoPath(route: string): string {
  return `/${route.replace(/^\^/, '').replace(/\$$/, '').replace(/^\/+/, '')}`;
}

/** Flask's `app.add_url_rule('/user/<name>', view_func=show_user, methods=['GET'])`. */
function addUrlRules(s: SurfaceBuilder, root: Node, prefixes: Map<string, string>): void {
  for (const m of s.text.matchAll(/\.\s*add_url_rule\s*\(/g)) {
    const at = (m.index ?? 0) + m[0].indexOf('add_url_rule');
    const id = root.descendantForIndex(at, at + 12);
    const call = id?.parent?.type === 'attribute' ? id.parent.parent : null;
    if (call?.type !== 'call') continue;
    const owner = id?.parent?.childForFieldName('object')?.text ?? '';
    const args = call.childForFieldName('arguments');
    const positional = (args?.namedChildren ?? []).filter(
      (a): a is Node => !!a && a.type !== 'keyword_argument' && a.type !== 'comment',
    );
    const rule = stringValue(keyword(args, 'rule') ?? positional[0]);
    const view = keyword(args, 'view_func') ?? positional[2];
    if (rule === undefined || !rule.startsWith('/') || !view) continue;
    addRoutes(s, prefixes, {
      owner,
      receiver: owner && /^[\w.]+$/.test(owner) ? owner : undefined,
      rule,
      methods: listedMethods(keyword(args, 'methods'), 'GET'),
      framework: 'flask',
      at: call,
      handler: viewHandler(view),
    });
  }
}

/**
 * A route for each method at `rule` under the prefix its owner was given (a blueprint's url_prefix, a
 * router's prefix), registered on `receiver` (for mounts) when there is one.
 */
function addRoutes(
  s: SurfaceBuilder,
  prefixes: Map<string, string>,
  r: {
    owner: string;
    receiver: string | undefined;
    rule: string;
    methods: readonly (string | null)[];
    framework: string;
    at: Node;
    handler: HandlerRef;
  },
): void {
  const path = joinRoute(prefixes.get(r.owner) ?? '', r.rule);
  for (const method of r.methods)
    s.add({
      kind: 'route',
      method,
      path,
      name: routeName(method, path),
      framework: r.framework,
      at: r.at,
      handler: r.handler,
      ...(r.receiver ? { receiver: r.receiver } : {}),
    });
}

/** `serve = sub.add_parser('serve')` … `serve.set_defaults(func=run_serve)`. */
function argparse(s: SurfaceBuilder, root: Node): void {
  const funcs = new Map<string, Node>();
  for (const call of root.descendantsOfType('call')) {
    const fn = call?.childForFieldName('function');
    if (fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'set_defaults') continue;
    const v = keyword(call!.childForFieldName('arguments'), 'func');
    const obj = fn.childForFieldName('object')?.text;
    if (v && obj) funcs.set(obj, v);
  }
  for (const call of root.descendantsOfType('call')) {
    const fn = call?.childForFieldName('function');
    if (!call || fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'add_parser')
      continue;
    const name = stringValue(call.childForFieldName('arguments')?.namedChildren[0]);
    if (!name) continue;
    const assigned =
      call.parent?.type === 'assignment' ? call.parent.childForFieldName('left')?.text : undefined;
    // `sub.add_parser('x').set_defaults(func=f)` chains the call instead.
    const chained =
      call.parent?.type === 'attribute' && call.parent.parent?.type === 'call'
        ? keyword(call.parent.parent.childForFieldName('arguments'), 'func')
        : undefined;
    const f = chained ?? (assigned ? funcs.get(assigned) : undefined);
    const handler: HandlerRef =
      f && (f.type === 'identifier' || f.type === 'attribute') ? { name: f.text } : null;
    s.add({ kind: 'cli_command', method: null, path: null, name, framework: 'argparse', at: call, handler });
  }
}
