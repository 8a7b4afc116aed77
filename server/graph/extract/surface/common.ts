// What every surface recogniser shares: the entries it finds become nodes of the file that registers
// them (kind route / mcp_tool / cli_command / event_handler, metadata {method, path, name, framework}),
// each with a `handles` reference to its handler, resolved across files like a call.
import type { Extraction, GraphNode, NodeKind, SurfaceKind } from '../../types.ts';
import { symbolUid } from '../../uid.ts';
import type { Node } from '../common.ts';

export type { Node };

export const SURFACE_NODE_KINDS: ReadonlySet<string> = new Set<SurfaceKind>([
  'route',
  'mcp_tool',
  'cli_command',
  'event_handler',
]);

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/**
 * The handler as the registration names it: `{ name }` a name or dotted member as written (resolved
 * like a call from the file), `{ local }` the qualified name of a declaration of this file (the
 * decorated function, or the declaration an inline callback is written in), or null (none known).
 */
export type HandlerRef = { name: string; recvType?: string } | { local: string } | null;

export interface SurfaceEntry {
  kind: SurfaceKind;
  method: string | null;
  path: string | null;
  /** The tool, command or event name; for a route, `METHOD path`. */
  name: string;
  framework: string;
  /** The syntax that registers it (its lines are the entry's lines). */
  at: Node;
  handler: HandlerRef;
  /** The router a route is registered on, as written (`router`, `bp`), for mounts (see `mount`). */
  receiver?: string;
}

/**
 * `app.use('/orders', ordersRouter)`, `app.include_router(items.router, prefix='/items')`: the routes of
 * `target` are served under `prefix`. `module`/`imported` say where `target`'s head comes from (the
 * file's import binding), so queries/surface.ts can find the file that registers them.
 */
export interface Mount {
  prefix: string;
  target: string;
  module?: string;
  imported?: string;
}

/** Where a handler sits: at most this many characters of a name as written are kept. */
const NAME_MAX = 200;

/** Declarations an inline callback can be attributed to (the graph gives anonymous functions no node). */
const ENCLOSING: ReadonlySet<NodeKind> = new Set(['function', 'method', 'constant', 'variable', 'class']);
const CALLABLE: ReadonlySet<NodeKind> = new Set(['function', 'method']);

export class SurfaceBuilder {
  /** Built on first use: most files register nothing. */
  private takenUids: Set<string> | undefined;
  private symbolList: GraphNode[] | undefined;
  readonly fileUid: string;

  constructor(
    readonly path: string,
    readonly text: string,
    private readonly ex: Extraction,
  ) {
    this.fileUid = ex.nodes[0]?.uid ?? `code:file:${path}`;
  }

  private get taken(): Set<string> {
    this.takenUids ??= new Set(this.ex.nodes.map((n) => n.uid));
    return this.takenUids;
  }

  private get symbols(): GraphNode[] {
    this.symbolList ??= this.ex.nodes.filter((n) => ENCLOSING.has(n.kind));
    return this.symbolList;
  }

  /** Whether the file's text mentions a module (cheap guess at a framework, by its import). */
  imports(re: RegExp): boolean {
    return re.test(this.text);
  }

  /** The innermost declaration whose lines hold `line` (the file's own node when none). */
  enclosing(line: number): GraphNode | undefined {
    let best: GraphNode | undefined;
    for (const n of this.symbols) {
      if (n.startLine > line || n.endLine < line) continue;
      if (!best || n.endLine - n.startLine < best.endLine - best.startLine) best = n;
    }
    return best;
  }

  /** The function or method declared at `line`, by its label when given. */
  declaredAt(line: number, label?: string): GraphNode | undefined {
    return this.symbols.find(
      (n) => CALLABLE.has(n.kind) && n.startLine === line && (label === undefined || n.label === label),
    );
  }

  /** A declaration found by the builder, as a handler reference. */
  local(node: GraphNode | undefined): HandlerRef {
    return node ? { local: node.qualifiedName } : null;
  }

  /** Marks a node as an entry point (metadata.entry), for cos_graph_entrypoints. */
  markEntry(node: GraphNode | undefined, reason: string): void {
    if (!node) return;
    node.metadata ??= {};
    const meta = node.metadata;
    const list = Array.isArray(meta.entry) ? (meta.entry as string[]) : [];
    if (!list.includes(reason)) list.push(reason);
    meta.entry = list;
  }

  /** Whether `local` is a name this file imports (`import x from`, `const x = require(…)`). */
  imported(local: string): boolean {
    return this.ex.facts.bindings.some((b) => b.local === local);
  }

  /**
   * Records a mount on the file node (`metadata.mounts`), with the import its target's head names, or
   * `module` when the mount names the module itself (`app.use('/x', require('./x'))`).
   */
  mount(prefix: string, target: string, module?: string): void {
    const file = this.fileNode;
    if (!file || !/^[\w$.]{1,100}$/.test(target) || prefix.length > NAME_MAX) return;
    if (module !== undefined && module.length > NAME_MAX) return;
    const head = target.split('.')[0] ?? target;
    const binding =
      module === undefined
        ? this.ex.facts.bindings.find((b) => b.local === head)
        : { module, imported: undefined };
    const m: Mount = { prefix, target };
    if (binding) {
      m.module = binding.module;
      if (binding.imported !== undefined) m.imported = binding.imported;
    }
    file.metadata ??= {};
    const list = Array.isArray(file.metadata.mounts) ? (file.metadata.mounts as Mount[]) : [];
    if (list.length < 100) list.push(m);
    file.metadata.mounts = list;
  }

  get fileNode(): GraphNode | undefined {
    return this.ex.nodes[0];
  }

  add(e: SurfaceEntry): void {
    // A "path" of a kilobyte is a string that happens to sit where a route's would (a template, a query).
    if (e.name.length > NAME_MAX * 2 || (e.path?.length ?? 0) > NAME_MAX * 2) return;
    const label = e.name.length > NAME_MAX ? `${e.name.slice(0, NAME_MAX - 1)}…` : e.name;
    let qname = label;
    for (let i = 2; this.taken.has(symbolUid(e.kind, this.path, qname)); i++) qname = `${label}@${i}`;
    const uid = symbolUid(e.kind, this.path, qname);
    this.taken.add(uid);
    this.ex.nodes.push({
      uid,
      kind: e.kind,
      label,
      qualifiedName: qname,
      startLine: e.at.startPosition.row + 1,
      endLine: e.at.endPosition.row + 1,
      parent: this.fileUid,
      metadata: {
        method: e.method,
        path: e.path,
        name: e.name,
        framework: e.framework,
        ...(e.receiver && /^[\w$.]{1,100}$/.test(e.receiver) ? { receiver: e.receiver } : {}),
      },
    });
    const h = e.handler;
    if (!h) return;
    const name = 'local' in h ? h.local : h.name;
    if (!name || name.length > NAME_MAX) return;
    this.ex.facts.refs.push({
      type: 'handles',
      from: uid,
      name,
      line: e.at.startPosition.row + 1,
      col: e.at.startPosition.column + 1,
      ...('local' in h ? { local: h.local } : {}),
      ...('recvType' in h && h.recvType ? { recvType: h.recvType } : {}),
    });
  }
}

/** The value of a string literal node of any of the grammars, or undefined for anything else. */
export function stringValue(n: Node | null | undefined): string | undefined {
  if (!n) return undefined;
  switch (n.type) {
    case 'string':
    case 'string_literal':
    case 'interpreted_string_literal':
    case 'raw_string_literal': {
      // Python's `f"…"`, `r"…"` prefixes, and every grammar's quotes.
      const t = n.text;
      const m = /^[a-zA-Z]*("""|'''|"|'|`)([\s\S]*)\1$/.exec(t);
      return m ? m[2] : undefined;
    }
    case 'template_string': {
      // `/orders/${id}`: the substitutions kept as written, so the path still reads as a route.
      const t = n.text;
      return t.length >= 2 ? t.slice(1, -1) : undefined;
    }
    case 'concatenated_string': {
      const parts = n.namedChildren.map((c) => stringValue(c));
      return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
    }
    default:
      return undefined;
  }
}

/** `prefix` and `path` joined with one slash between them (`/api` + `orders/` → `/api/orders/`). */
export function joinRoute(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path || path === '/') return prefix.endsWith('/') && prefix.length > 1 ? prefix.slice(0, -1) : prefix;
  return `${prefix.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export function routeName(method: string | null, path: string): string {
  return `${method ?? 'ANY'} ${path}`;
}

/**
 * The declared type of `name` where it is a parameter of a function around `at` (`store *Store`,
 * `ctrl: OrdersController`), so `store.List` as a handler resolves like the call `store.List()`.
 */
export function parameterType(at: Node, name: string, functions: ReadonlySet<string>): string | undefined {
  for (let n: Node | null = at.parent; n; n = n.parent) {
    if (!functions.has(n.type)) continue;
    const lists = [n.childForFieldName('parameters'), n.childForFieldName('receiver')];
    for (const list of lists)
      for (const p of list?.namedChildren ?? []) {
        if (!p) continue;
        const pname = p.childForFieldName('name') ?? p.childForFieldName('pattern');
        if (pname?.text !== name) continue;
        const type = p.childForFieldName('type');
        const t = type?.text.replace(/^:\s*/, '').replace(/^\*+/, '').trim();
        return t && /^[A-Za-z_$][\w$.]*$/.test(t) ? t : undefined;
      }
  }
  return undefined;
}
