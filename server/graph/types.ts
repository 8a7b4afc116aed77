// The shapes that flow from an extractor to the store. Extraction is a pure function of (path, text):
// it names symbols and records references by name; resolution to uids happens later, across files, so
// a changed file can be re-extracted alone and its neighbours re-resolved.

export type NodeKind =
  | 'folder'
  | 'file'
  | 'doc_file'
  | 'heading'
  | 'module'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'function'
  | 'method'
  | 'variable'
  | 'constant'
  | 'dependency'
  | 'external'
  | SurfaceKind;

/**
 * What a repository exposes (issue 31): an HTTP route, an MCP tool, a CLI command, an event handler.
 * Each is a node in the file that registers it, with a `handles` edge to its handler.
 */
export type SurfaceKind = 'route' | 'mcp_tool' | 'cli_command' | 'event_handler';

export type EdgeType =
  | 'contains'
  | 'imports'
  | 'calls'
  | 'inherits_from'
  | 'implements'
  | 'has_param_type'
  | 'returns_type'
  | 'constructs'
  | 'links_to'
  | 'cites_heading'
  | 'requires'
  | 'tests'
  | 'handles';

export interface GraphNode {
  uid: string;
  kind: NodeKind;
  label: string;
  qualifiedName: string;
  startLine: number;
  endLine: number;
  signature?: string;
  metadata?: Record<string, unknown>;
  /** uid of the node that contains this one (file, class, heading); the file node has none. */
  parent?: string;
}

/** A reference by name, resolved to an edge after every file's symbols are known. */
export interface Ref {
  /** Edge type it becomes. */
  type: EdgeType;
  /** uid of the referring node (function, method, class, file). */
  from: string;
  /**
   * What is referred to. Calls: the callee as written, dotted (`foo`, `ns.foo`, `this.foo`, `Cls.m`).
   * Types: the type name. Imports: empty (module carries it). Links: the target path (+ `#fragment`).
   */
  name: string;
  /** Import/require specifier, or manifest dependency name. */
  module?: string;
  line: number;
  col: number;
  /** Enclosing class qualified name, for this.x()/self.x(). */
  cls?: string;
  /** Local receiver type for `v.m()` when `v` was declared with a type or `new T()`. */
  recvType?: string;
  /**
   * The name (or the receiver of `v.m()`) is bound in a function around the call: the qualified name
   * of the declaration of this file it names (a nested function or class), or null for a parameter or
   * local variable, whose value the graph cannot follow (TypeScript/JavaScript).
   */
  local?: string | null;
  /**
   * A receiver the graph can follow through declared types (TypeScript/JavaScript), when `recvType`
   * cannot say it: `this.cache.store.get()` → `['T:Service', '.cache', '.store']`, `getStore().get()`
   * → `['N:getStore', '()']`. The first segment is `T:<type>` (an instance of a type named in this file)
   * or `N:<name>` (a value named in this file: a function, a method, an imported constant); then `.x`
   * (a field, or a method to be called), `()` (the result of calling it) and `await` (what a promise
   * gives). A local declared with an expression (`const s = getStore()`) stands for that expression's
   * chain. The called member is the last part of `name`.
   */
  via?: string[];
}

/** `import { imported as local } from module`; imported is 'default', '*' or a name. */
export interface Binding {
  local: string;
  module: string;
  imported: string;
}

/** `export { imported as exported } from module`; imported '*' with exported '*' is `export *`. */
export interface ReExport {
  module: string;
  imported: string;
  exported: string;
}

export interface FileFacts {
  refs: Ref[];
  bindings: Binding[];
  reexports: ReExport[];
  /** Go package name / Java package / Rust crate-relative module path, where the language has one. */
  pkg?: string;
  /** Base class names per class qualified name, for inherited this.x() lookups. */
  bases?: Record<string, string[]>;
  /** Declared type of fields, properties and module-level values, by qualified name (TypeScript). */
  fieldTypes?: Record<string, string>;
  /** Declared return type of functions and methods, by qualified name (`Promise<T>` kept as such; TypeScript). */
  returnTypes?: Record<string, string>;
  /** Untyped module-level values declared with a call (`const store = createStore()`): its Ref.via chain. */
  valueVia?: Record<string, string[]>;
  /** Manifest facts: dependency names declared. */
  deps?: { name: string; version?: string; ecosystem: string; dev?: boolean }[];
}

export interface Extraction {
  nodes: GraphNode[];
  facts: FileFacts;
  /** Set when the parser reported syntax errors; extraction still returns what it found. */
  error?: string;
}

export type Language =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'java'
  | 'rust'
  | 'markdown'
  | 'json'
  | 'toml'
  | 'text'
  | 'c_sharp'
  | 'cpp'
  | 'ruby'
  | 'php'
  | 'bash'
  | 'css'
  | 'powershell'
  | 'ini';
