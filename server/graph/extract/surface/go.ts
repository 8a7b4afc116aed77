// Go: net/http (`http.HandleFunc`, `mux.Handle`, Go 1.22 `"GET /x"` patterns, gorilla's `.Methods(…)`),
// chi (`r.Get`, `r.Route` prefixes), gin and echo (`r.GET`, groups), fiber (`app.Get`), cobra commands
// (`&cobra.Command{Use, Run|RunE}`), and `func main` in package main.
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

/** Receivers that read as a router where no router package is imported. */
const ROUTER_NAME = /^(r|router|mux|app|api|e|g|srv|server|v\d+|\w*(Router|Mux|Group|Routes))$/;
const ROUTE_SITE =
  /\.\s*(HandleFunc|Handle|Get|Post|Put|Patch|Delete|Head|Options|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|Any)\s*\(\s*["`]/g;
const GO_FUNCTIONS = new Set(['function_declaration', 'method_declaration', 'func_literal']);
const UPPER = new Set<string>([...HTTP_METHODS, 'Any']);
const CAMEL = new Map<string, string>(HTTP_METHODS.map((m) => [m[0] + m.slice(1).toLowerCase(), m]));

function goFramework(s: SurfaceBuilder): string {
  if (s.imports(/"github\.com\/gin-gonic\/gin"/)) return 'gin';
  if (s.imports(/"github\.com\/labstack\/echo/)) return 'echo';
  if (s.imports(/"github\.com\/go-chi\/chi/)) return 'chi';
  if (s.imports(/"github\.com\/gofiber\/fiber/)) return 'fiber';
  if (s.imports(/"github\.com\/gorilla\/mux"/)) return 'gorilla';
  return 'net/http';
}

export function recogniseGo(s: SurfaceBuilder, tree: Tree): void {
  const root = tree.rootNode;
  const text = s.text;
  // Registrations are found in the text first; only those sites are read in the tree.
  const sites = [...text.matchAll(ROUTE_SITE)];
  if (sites.length > 0) {
    const framework = goFramework(s);
    const groups = /\.(Group|PathPrefix)\s*\(/.test(text) ? groupPrefixes(root) : new Map<string, string>();
    for (const m of sites) {
      const name = m[1] ?? '';
      const at = (m.index ?? 0) + m[0].indexOf(name);
      const field = root.descendantForIndex(at, at + name.length);
      const call = field?.parent?.type === 'selector_expression' ? field.parent.parent : null;
      if (call?.type === 'call_expression') route(s, call, framework, groups);
    }
  }
  if (text.includes('cobra.Command'))
    for (const lit of root.descendantsOfType('composite_literal')) if (lit) cobra(s, lit);
  const pkg = root.namedChildren.find((c) => c?.type === 'package_clause')?.namedChildren[0]?.text;
  if (pkg === 'main')
    for (const f of root.namedChildren)
      if (f?.type === 'function_declaration' && f.childForFieldName('name')?.text === 'main')
        s.markEntry(s.declaredAt(f.startPosition.row + 1, 'main'), 'go_main');
}

function handlerOf(s: SurfaceBuilder, arg: Node | null | undefined): HandlerRef {
  if (!arg) return null;
  if (arg.type === 'identifier' || arg.type === 'selector_expression') {
    const t = arg.text.replace(/\s+/g, '');
    if (!/^[\w.]+$/.test(t)) return null;
    const operand = arg.type === 'selector_expression' ? arg.childForFieldName('operand') : null;
    const recvType =
      operand?.type === 'identifier' ? parameterType(arg, operand.text, GO_FUNCTIONS) : undefined;
    return recvType ? { name: t, recvType } : { name: t };
  }
  if (arg.type === 'func_literal') return s.local(s.enclosing(arg.startPosition.row + 1));
  // http.HandlerFunc(h), middleware(h): the innermost argument.
  if (arg.type === 'call_expression') {
    const args = arg.childForFieldName('arguments')?.namedChildren ?? [];
    const last = args[args.length - 1];
    if (last) return handlerOf(s, last);
    // h.ServeList(): a method returning the handler.
    const fn = arg.childForFieldName('function');
    return fn ? handlerOf(s, fn) : null;
  }
  if (arg.type === 'unary_expression') return handlerOf(s, arg.childForFieldName('operand'));
  return null;
}

/** `v1 := r.Group("/v1")`, `api := r.PathPrefix("/api").Subrouter()`: prefix per variable name. */
function groupPrefixes(root: Node): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of root.descendantsOfType(['short_var_declaration', 'assignment_statement'])) {
    const left = d?.childForFieldName('left')?.namedChildren[0];
    const right = d?.childForFieldName('right')?.namedChildren[0];
    if (left?.type !== 'identifier' || right?.type !== 'call_expression') continue;
    let call: Node | null = right;
    const sel = call.childForFieldName('function');
    // `.Subrouter()` after `.PathPrefix("/x")`.
    if (sel?.type === 'selector_expression' && sel.childForFieldName('field')?.text === 'Subrouter')
      call = sel.childForFieldName('operand');
    if (call?.type !== 'call_expression') continue;
    const fn = call.childForFieldName('function');
    const field = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : undefined;
    if (field !== 'Group' && field !== 'PathPrefix') continue;
    const p = stringValue(call.childForFieldName('arguments')?.namedChildren[0]);
    if (p === undefined) continue;
    const base = fn?.childForFieldName('operand')?.text;
    out.set(left.text, joinRoute((base && out.get(base)) ?? '', p));
  }
  return out;
}

/** The prefix of chi's `r.Route("/x", func(r chi.Router) { … })` blocks around a call. */
function routeBlocks(call: Node): string {
  let prefix = '';
  for (let at = call.parent; at; at = at.parent) {
    if (at.type !== 'func_literal') continue;
    const outer = at.parent?.parent;
    if (outer?.type !== 'call_expression') continue;
    const fn = outer.childForFieldName('function');
    if (fn?.type !== 'selector_expression' || fn.childForFieldName('field')?.text !== 'Route') continue;
    const p = stringValue(outer.childForFieldName('arguments')?.namedChildren[0]);
    if (p !== undefined) prefix = joinRoute(p, prefix);
  }
  return prefix;
}

function route(s: SurfaceBuilder, call: Node, framework: string, groups: Map<string, string>): void {
  const fn = call.childForFieldName('function');
  if (fn?.type !== 'selector_expression') return;
  const field = fn.childForFieldName('field')?.text ?? '';
  const operand = fn.childForFieldName('operand');
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter((a): a is Node => !!a);
  const pattern = stringValue(args[0]);
  if (pattern === undefined || args.length < 2) return;
  const last = args[args.length - 1];
  let method: string | null;
  let path: string;
  let fw = framework;
  if (field === 'HandleFunc' || field === 'Handle') {
    // Go 1.22: "GET /orders/{id}"; gorilla: .HandleFunc("/x", h).Methods("GET", "POST").
    const m = /^([A-Z]+)\s+(\S.*)$/.exec(pattern);
    method = m ? m[1]! : null;
    path = m ? m[2]! : pattern;
    if (fw !== 'gorilla' && fw !== 'chi') fw = 'net/http';
    const outer = call.parent?.type === 'selector_expression' ? call.parent : null;
    if (
      !method &&
      outer?.childForFieldName('field')?.text === 'Methods' &&
      outer.parent?.type === 'call_expression'
    ) {
      const listed = (outer.parent.childForFieldName('arguments')?.namedChildren ?? [])
        .map((a) => stringValue(a))
        .filter((x): x is string => !!x);
      for (const lm of listed) add(s, call, lm.toUpperCase(), path, fw, last, operand, groups);
      if (listed.length > 0) return;
    }
  } else if (fw === 'net/http' && !ROUTER_NAME.test(operand?.text ?? '')) {
    // `cache.Get("/key", v)` in a file that imports no router: not a route.
    return;
  } else if (UPPER.has(field) && fw !== 'chi' && fw !== 'fiber') {
    method = field === 'Any' ? null : field;
    path = pattern;
  } else if (CAMEL.has(field) && (fw === 'chi' || fw === 'fiber' || fw === 'net/http')) {
    method = CAMEL.get(field)!;
    path = pattern;
    if (fw === 'net/http') fw = 'chi';
  } else return;
  if (!path.startsWith('/') && path !== '*') return;
  add(s, call, method, path, fw, last, operand, groups);
}

function add(
  s: SurfaceBuilder,
  call: Node,
  method: string | null,
  path: string,
  framework: string,
  handler: Node | undefined,
  operand: Node | null,
  groups: Map<string, string>,
): void {
  const group = operand?.type === 'identifier' ? (groups.get(operand.text) ?? '') : '';
  const full = joinRoute(joinRoute(routeBlocks(call), group), path);
  s.add({
    kind: 'route',
    method,
    path: full,
    name: routeName(method, full),
    framework,
    at: call,
    handler: handlerOf(s, handler),
  });
}

function cobra(s: SurfaceBuilder, lit: Node): void {
  const type = lit.childForFieldName('type')?.text;
  if (type !== 'cobra.Command') return;
  const fields = new Map<string, Node>();
  for (const el of lit.childForFieldName('body')?.namedChildren ?? []) {
    if (el?.type !== 'keyed_element') continue;
    const [k, v] = el.namedChildren;
    const key = k?.text;
    const value = v?.type === 'literal_element' ? v.namedChildren[0] : v;
    if (key && value) fields.set(key, value);
  }
  const use = stringValue(fields.get('Use'))?.trim().split(/\s+/)[0];
  if (!use) return;
  const run = fields.get('RunE') ?? fields.get('Run');
  s.add({
    kind: 'cli_command',
    method: null,
    path: null,
    name: use,
    framework: 'cobra',
    at: lit,
    handler: handlerOf(s, run),
  });
}
