// Cross-file resolution: turns a file's references (names as written) into edges between uids, using
// every file's definitions, import bindings and re-exports. Pure over the in-memory model, so the
// indexer can re-resolve any file when something it depends on changes.
import { dirOf, joinPath, normalize, packageName, type TsPaths } from './project.ts';
import type { Binding, EdgeType, Language, NodeKind, ReExport, Ref } from './types.ts';
import { dependencyUid, docFileUid, externalUid, fileUid, folderUid, UNRESOLVED_MODULE } from './uid.ts';

export interface Def {
  uid: string;
  kind: NodeKind;
}

export interface FileRec {
  id: number;
  path: string;
  language: Language;
  /** Symbols by qualified name (a name can carry a value and a type: several defs). */
  defs: Map<string, Def[]>;
  bindings: Map<string, Binding>;
  reexports: ReExport[];
  pkg?: string;
  bases?: Record<string, string[]>;
  /** Declared types of fields and module-level values, and return types, by qualified name (FileFacts). */
  fieldTypes?: Record<string, string>;
  returnTypes?: Record<string, string>;
  valueVia?: Record<string, string[]>;
}

/**
 * Where a receiver chain stands (viaTarget): an instance of a class or interface, a function to call,
 * or a promise of the type `qname` names in `file` (what `await` gives).
 */
type ChainAt = { at: 'instance' | 'callable' | 'promise'; file: FileRec; qname: string };

export interface ResolvedEdge {
  source: string;
  target: string;
  type: EdgeType;
  confidence: number;
  extractor: string;
  line: number;
  col: number;
}

export interface StubNode {
  uid: string;
  kind: 'external' | 'dependency';
  label: string;
  qualifiedName: string;
}

export interface Project {
  tsPaths?: TsPaths;
  /** Package names declared by any manifest in the repo. */
  deps: Set<string>;
  /** go.mod module paths and the directory each one roots. */
  goModules: { dir: string; module: string }[];
}

/** How sure an edge is (stored as `confidence`). */
export const CONFIDENCE = {
  exact: 1,
  /** Through a receiver whose type was read from a declaration or `new T()`. */
  typedReceiver: 0.9,
  /** To an external package symbol, through an import of that package. */
  externalImported: 0.9,
  /** A name matched by language rules that the extractor cannot fully check (e.g. implicit Java this). */
  inferred: 0.8,
  /** A global or builtin: no binding, no definition. */
  externalGlobal: 0.5,
  /** The receiver's type is unknown: the target is only the member name. */
  unresolved: 0.2,
} as const;

type Target = { uid: string; kind: NodeKind; confidence: number } | { stub: StubNode; confidence: number };

const TS_EXTS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};
const VALUE_KINDS: ReadonlySet<NodeKind> = new Set([
  'function',
  'class',
  'method',
  'constant',
  'variable',
  'enum',
  'module',
]);
const TYPE_KINDS: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type', 'enum', 'module']);
const METHOD_KIND: ReadonlySet<NodeKind> = new Set(['method']);

const isTsLike = (l: Language) => l === 'typescript' || l === 'tsx' || l === 'javascript';

export class Resolver {
  private pyIndex: Map<string, string> | undefined;
  private rustIndex: Map<string, string> | undefined;
  private javaIndex: Map<string, string[]> | undefined;
  private dirIndex: Map<string, string[]> | undefined;
  /** Every path segment in the repo (directory and module names), for mayBecomeLocal. */
  private segments: Set<string> | undefined;
  private labelIndex: Map<string, { uid: string; kind: NodeKind; qname: string }[]> | undefined;
  readonly stubs = new Map<string, StubNode>();

  constructor(
    private readonly files: Map<string, FileRec>,
    private readonly project: Project,
  ) {}

  /** Call when files are added or removed: the per-language module maps are rebuilt on next use. */
  invalidate(): void {
    this.pyIndex = undefined;
    this.rustIndex = undefined;
    this.javaIndex = undefined;
    this.dirIndex = undefined;
    this.labelIndex = undefined;
    this.segments = undefined;
  }

  /**
   * Drops the index of every symbol by label, which only documents' inline code is matched against:
   * the indexer resolves documents first and calls this after them.
   */
  forgetLabels(): void {
    this.labelIndex = undefined;
  }

  /** All edges of one file (except the structural `contains`, written at extraction). */
  resolveFile(
    rec: FileRec,
    refs: Ref[],
  ): { edges: ResolvedEdge[]; importsFiles: Set<string>; unresolvedLocal: boolean } {
    let unresolvedLocal = false;
    const edges: ResolvedEdge[] = [];
    const importsFiles = new Set<string>();
    const extractor = `${extractorPrefix(rec.language)}/resolve`;
    // One edge per (source, target, type) at a reference site. Edges are bucketed by a number made of
    // the site (exact for columns below 2^20, and compared in full anyway): a string key per edge
    // cost more than the edge.
    const atSite = new Map<number, ResolvedEdge | ResolvedEdge[]>();
    const push = (ref: Ref, target: Target, type: EdgeType = ref.type) => {
      let uid: string;
      if ('stub' in target) {
        // The first stub of a uid is the one kept: its uid string is shared by all the file's edges to it.
        const known = this.stubs.get(target.stub.uid);
        if (known) uid = known.uid;
        else {
          uid = target.stub.uid;
          this.stubs.set(uid, target.stub);
        }
      } else uid = target.uid;
      if (uid === ref.from && type !== 'calls') return;
      const site = ref.line * 0x100000 + ref.col;
      const there = atSite.get(site);
      if (there) {
        const same = (e: ResolvedEdge) =>
          e.target === uid &&
          e.type === type &&
          e.source === ref.from &&
          e.line === ref.line &&
          e.col === ref.col;
        if (Array.isArray(there) ? there.some(same) : same(there)) return;
      }
      const edge: ResolvedEdge = {
        source: ref.from,
        target: uid,
        type,
        confidence: target.confidence,
        extractor,
        line: ref.line,
        col: ref.col,
      };
      if (!there) atSite.set(site, edge);
      else if (Array.isArray(there)) there.push(edge);
      else atSite.set(site, [there, edge]);
      edges.push(edge);
    };

    for (const ref of refs) {
      switch (ref.type) {
        case 'imports': {
          const mod = this.resolveModule(rec, ref.module ?? '');
          if ('files' in mod) {
            for (const f of mod.files) {
              importsFiles.add(f);
              push(ref, { uid: fileUid(f), kind: 'file', confidence: CONFIDENCE.exact });
            }
          } else {
            unresolvedLocal ||= this.mayBecomeLocal(rec, ref.module ?? '');
            push(ref, {
              stub: mod.stub,
              confidence: mod.stub.kind === 'dependency' ? 1 : CONFIDENCE.externalImported,
            });
          }
          break;
        }
        case 'requires':
          push(ref, {
            stub: {
              uid: dependencyUid(ref.name),
              kind: 'dependency',
              label: ref.name,
              qualifiedName: ref.name,
            },
            confidence: CONFIDENCE.exact,
          });
          break;
        case 'handles':
          // A surface entry (route, tool, command, event) to its handler, named as a call names it.
          push(ref, this.lookup(rec, ref, VALUE_KINDS));
          break;
        case 'calls':
        case 'constructs': {
          const t = this.lookup(rec, ref, VALUE_KINDS);
          // A call of a class is a construction in Python and Rust tuple structs.
          const type = 'kind' in t && t.kind === 'class' && ref.type === 'calls' ? 'constructs' : ref.type;
          push(ref, t, type);
          break;
        }
        case 'links_to':
        case 'cites_heading':
          this.link(rec, ref, push);
          break;
        case 'inherits_from':
        case 'implements':
        case 'has_param_type':
        case 'returns_type':
          push(ref, this.lookup(rec, ref, TYPE_KINDS));
          break;
        default:
          break;
      }
    }
    this.testsEdge(rec, importsFiles, push);
    return { edges, importsFiles, unresolvedLocal };
  }

  /**
   * Whether an import that failed could start resolving when a file is added: relative and
   * repo-rooted specifiers, not `node:fs` or `requests` (re-resolving every importer of a package on
   * each new file would make adds cost a full resolve).
   */
  private mayBecomeLocal(rec: FileRec, spec: string): boolean {
    if (spec.startsWith('.') || spec.startsWith('/')) return true;
    switch (rec.language) {
      case 'typescript':
      case 'tsx':
      case 'javascript':
        return this.project.tsPaths?.paths.some((p) => p.prefix !== '' && spec.startsWith(p.prefix)) ?? false;
      case 'go':
        return this.project.goModules.some((g) => spec.startsWith(g.module));
      case 'rust':
        return !spec.includes('::') || /^(crate|self|super)::/.test(spec);
      case 'python':
      case 'java': {
        if (!this.segments) {
          this.segments = new Set();
          for (const p of this.files.keys())
            for (const seg of p.split('/')) this.segments.add(seg.replace(/\.pyi?$/, ''));
        }
        return this.segments.has(spec.split('.')[0] ?? '');
      }
      default:
        return false;
    }
  }

  // ---- modules ---------------------------------------------------------------------------------

  /** The repo files a module specifier names, or the stub (dependency/external) it stands for. */
  resolveModule(from: FileRec, spec: string): { files: string[] } | { stub: StubNode } {
    const files = this.moduleFiles(from, spec);
    if (files?.length) return { files };
    return { stub: this.packageStub(from, spec) };
  }

  private moduleFiles(from: FileRec, spec: string): string[] | undefined {
    const lang = from.language;
    if (isTsLike(lang)) {
      const one = this.tsModule(from.path, spec);
      return one ? [one] : undefined;
    }
    if (lang === 'python') return this.pyModule(from.path, spec);
    if (lang === 'go') return this.goModule(spec);
    if (lang === 'java') return this.javaModule(spec);
    if (lang === 'rust') return this.rustModule(from, spec);
    return undefined;
  }

  private packageStub(from: FileRec, spec: string): StubNode {
    const lang = from.language;
    if (
      (isTsLike(lang) && !spec.startsWith('.') && !spec.startsWith('/')) ||
      (lang === 'python' && !spec.startsWith('.'))
    ) {
      const pkg = isTsLike(lang) ? packageName(spec) : (spec.split('.')[0] ?? spec).toLowerCase();
      if (this.project.deps.has(pkg))
        return { uid: dependencyUid(pkg), kind: 'dependency', label: pkg, qualifiedName: pkg };
    }
    if (lang === 'go') {
      const pkg = spec;
      if (this.project.deps.has(pkg))
        return { uid: dependencyUid(pkg), kind: 'dependency', label: pkg, qualifiedName: pkg };
    }
    if (lang === 'rust') {
      const crate = spec.split('::')[0] ?? spec;
      if (this.project.deps.has(crate))
        return { uid: dependencyUid(crate), kind: 'dependency', label: crate, qualifiedName: crate };
    }
    return { uid: externalUid(spec), kind: 'external', label: spec, qualifiedName: spec };
  }

  private tsModule(fromPath: string, spec: string): string | undefined {
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const base = spec.startsWith('/') ? normalize(spec) : joinPath(dirOf(fromPath), spec);
      return this.tsCandidates(base);
    }
    const tp = this.project.tsPaths;
    if (tp) {
      for (const p of tp.paths) {
        if (!spec.startsWith(p.prefix) || !spec.endsWith(p.suffix)) continue;
        if (!p.wildcard && spec !== p.prefix) continue;
        const star = spec.slice(p.prefix.length, spec.length - p.suffix.length);
        for (const t of p.targets) {
          const hit = this.tsCandidates(joinPath(tp.base, t.replace('*', star)));
          if (hit) return hit;
        }
      }
    }
    return undefined;
  }

  private tsCandidates(base: string): string | undefined {
    if (this.files.has(base)) return base;
    const dot = base.lastIndexOf('.');
    const ext = dot > base.lastIndexOf('/') ? base.slice(dot) : '';
    for (const alt of JS_TO_TS[ext] ?? []) {
      const p = base.slice(0, dot) + alt;
      if (this.files.has(p)) return p;
    }
    for (const e of TS_EXTS) if (this.files.has(base + e)) return base + e;
    // '' is the repo root (`import … from '../..'` at the top).
    const index = base ? `${base}/index` : 'index';
    for (const e of TS_EXTS) if (this.files.has(index + e)) return index + e;
    return undefined;
  }

  private pyModule(fromPath: string, spec: string): string[] | undefined {
    const m = /^(\.+)(.*)$/.exec(spec);
    if (m) {
      let dir = dirOf(fromPath);
      for (let i = 1; i < m[1]!.length; i++) dir = dirOf(dir);
      const rest = m[2]!.replaceAll('.', '/');
      const base = rest ? joinPath(dir, rest) : dir;
      for (const c of [`${base}.py`, `${base}/__init__.py`, `${base}.pyi`])
        if (this.files.has(normalize(c))) return [normalize(c)];
      return undefined;
    }
    this.pyIndex ??= this.buildPyIndex();
    const hit = this.pyIndex.get(spec);
    return hit ? [hit] : undefined;
  }

  /** Dotted module names of every Python file, from the repo root, `src/`, and each package's root. */
  private buildPyIndex(): Map<string, string> {
    const idx = new Map<string, string>();
    for (const rec of this.files.values()) {
      if (rec.language !== 'python') continue;
      const parts = rec.path.replace(/\.pyi?$/, '').split('/');
      if (parts[parts.length - 1] === '__init__') parts.pop();
      // Every suffix of the path is a candidate module name; the longest (root-most) wins conflicts.
      for (let i = parts.length - 1; i >= 0; i--) {
        const name = parts.slice(i).join('.');
        if (name) idx.set(name, rec.path);
      }
    }
    return idx;
  }

  private goModule(spec: string): string[] | undefined {
    for (const gm of this.project.goModules) {
      if (spec !== gm.module && !spec.startsWith(`${gm.module}/`)) continue;
      const dir = joinPath(gm.dir, spec.slice(gm.module.length + 1));
      return this.filesInDir(dir, 'go');
    }
    return undefined;
  }

  private filesInDir(dir: string, lang: Language): string[] | undefined {
    if (!this.dirIndex) {
      this.dirIndex = new Map();
      for (const rec of this.files.values()) {
        const key = `${rec.language}|${dirOf(rec.path)}`;
        let list = this.dirIndex.get(key);
        if (!list) {
          list = [];
          this.dirIndex.set(key, list);
        }
        list.push(rec.path);
      }
    }
    return this.dirIndex.get(`${lang}|${dir}`);
  }

  private javaModule(spec: string): string[] | undefined {
    if (!this.javaIndex) {
      this.javaIndex = new Map();
      for (const rec of this.files.values()) {
        if (rec.language !== 'java') continue;
        const pkg = rec.pkg ?? '';
        const add = (k: string) => {
          let l = this.javaIndex!.get(k);
          if (!l) {
            l = [];
            this.javaIndex!.set(k, l);
          }
          l.push(rec.path);
        };
        add(`${pkg}.*`);
        for (const q of rec.defs.keys()) if (q && !q.includes('.')) add(pkg ? `${pkg}.${q}` : q);
      }
    }
    const direct = this.javaIndex.get(spec);
    if (direct) return direct;
    // Static import a.b.C.m → the file of a.b.C.
    const dot = spec.lastIndexOf('.');
    return dot > 0 ? this.javaIndex.get(spec.slice(0, dot)) : undefined;
  }

  private rustModule(from: FileRec, spec: string): string[] | undefined {
    this.rustIndex ??= this.buildRustIndex();
    const crate = rustCrate(from.path);
    const own = rustModPath(from.path);
    const parts = spec.split('::');
    let mod: string[];
    if (parts[0] === 'crate') mod = parts.slice(1);
    else if (parts[0] === 'self') mod = [...own, ...parts.slice(1)];
    else if (parts[0] === 'super') {
      const up = [...own];
      let i = 0;
      while (parts[i] === 'super') {
        up.pop();
        i++;
      }
      mod = [...up, ...parts.slice(i)];
    } else {
      // `mod x;` declarations and paths relative to the current module.
      mod = [...own, ...parts];
      const hit = this.rustIndex.get(`${crate}|${mod.join('::')}`);
      if (hit) return [hit];
      return undefined;
    }
    const hit = this.rustIndex.get(`${crate}|${mod.join('::')}`);
    return hit ? [hit] : undefined;
  }

  private buildRustIndex(): Map<string, string> {
    const idx = new Map<string, string>();
    for (const rec of this.files.values()) {
      if (rec.language !== 'rust') continue;
      idx.set(`${rustCrate(rec.path)}|${rustModPath(rec.path).join('::')}`, rec.path);
    }
    return idx;
  }

  // ---- names -----------------------------------------------------------------------------------

  /** Resolves a name as written in `rec` (a call, a type, a base class) to a target. */
  private lookup(rec: FileRec, ref: Ref, prefer: ReadonlySet<NodeKind>): Target {
    const sep = rec.language === 'rust' ? /::|\./ : /\./;
    const parts = ref.name.split(sep).filter((p) => p !== '');
    const head = parts[0];
    const last = parts[parts.length - 1] ?? ref.name;
    if (!head) return this.unresolved(last);
    if (ref.via) {
      const t = this.viaTarget(rec, ref.via, last);
      if (t) return t;
    }

    // this.x() / self.x(): a member of the enclosing class or of its bases.
    if ((head === 'this' || head === 'self') && ref.cls) {
      if (parts.length === 2) {
        const m = this.member(rec, ref.cls, last, 0);
        if (m) return { ...m, confidence: CONFIDENCE.exact };
      } else if (ref.recvType) {
        const t = this.typedMember(rec, ref.recvType, last);
        if (t) return t;
      }
      return this.unresolved(last);
    }
    if (head === 'super' && ref.cls) {
      for (const base of rec.bases?.[ref.cls] ?? []) {
        const cls = this.lookupName(rec, base.split('.'), TYPE_KINDS, 0);
        if (cls && 'uid' in cls) {
          const m =
            parts.length === 1
              ? this.defIn(cls.file, `${cls.qname}.constructor`)
              : this.defIn(cls.file, `${cls.qname}.${last}`);
          if (m) return { ...m, confidence: CONFIDENCE.exact };
          if (parts.length === 1) return { uid: cls.uid, kind: cls.kind, confidence: CONFIDENCE.exact };
        }
      }
      return this.unresolved(last);
    }
    if (ref.recvType && parts.length === 2) {
      const t = this.typedMember(rec, ref.recvType, last);
      if (t) return t;
    }
    if (ref.local !== undefined) {
      // Bound in a function around the call: a nested declaration of this file, or a value (a
      // parameter, a local variable) that shadows any import or module symbol of the same name.
      const own = ref.local === null ? undefined : this.ownDef(rec, ref.local.split('.'), prefer);
      return own ? { uid: own.uid, kind: own.kind, confidence: CONFIDENCE.exact } : this.unresolved(last);
    }
    const found = this.lookupName(rec, parts, prefer, 0);
    if (found) {
      if ('stub' in found) return found;
      return { uid: found.uid, kind: found.kind, confidence: found.confidence };
    }
    // Java and Python's implicit receivers: a bare call inside a class is a call of its own method.
    if (parts.length === 1 && ref.cls && rec.language === 'java') {
      const m = this.member(rec, ref.cls, head, 0);
      if (m) return { ...m, confidence: CONFIDENCE.inferred };
    }
    if (head === '~' || parts.length > 1) return this.unresolved(last);
    return {
      stub: { uid: externalUid(ref.name), kind: 'external', label: ref.name, qualifiedName: ref.name },
      confidence: CONFIDENCE.externalGlobal,
    };
  }

  /**
   * `this.cache.store.get()`, `getStore().get()`, `makeCache().lookup()`: the receiver followed through
   * the declared types the files record (a field's type, a function's return type), each name resolved
   * in the file that declares it. Undefined as soon as a step has no declared type of the graph.
   */
  private viaTarget(rec: FileRec, via: readonly string[], member: string): Target | undefined {
    const at = this.chainAt(rec, via, 0);
    if (at?.at !== 'instance') return undefined;
    const m = this.member(at.file, at.qname, member, 0);
    return m ? { ...m, confidence: CONFIDENCE.typedReceiver } : undefined;
  }

  /** Where `via`, written in `rec`, leads; `depth` bounds values declared through other values. */
  private chainAt(rec: FileRec, via: readonly string[], depth: number): ChainAt | undefined {
    if (depth > 4) return undefined;
    const first = via[0]!;
    let at: ChainAt | undefined;
    let i = 1;
    if (first.startsWith('T:')) at = this.instanceOf(rec, first.slice(2));
    else {
      // A name and the property reads after it, as far as they name a definition (`s.getStore`, `api.make`).
      const parts = first.slice(2).split('.');
      const base = parts.length;
      while (i < via.length && via[i]!.startsWith('.')) parts.push(via[i++]!.slice(1));
      for (let k = parts.length; k >= base && !at; k--) {
        const d = this.lookupName(rec, parts.slice(0, k), VALUE_KINDS, 0);
        if (!d || 'stub' in d) continue;
        const file = this.files.get(d.file);
        if (!file) continue;
        i = 1 + k - base;
        if (d.kind === 'function' || d.kind === 'method') at = { at: 'callable', file, qname: d.qname };
        else if (d.kind === 'constant' || d.kind === 'variable') {
          // A declared type (`const store: Store`), or the chain it was declared with (`= createStore()`).
          const type = file.fieldTypes?.[d.qname];
          const value = type ? undefined : file.valueVia?.[d.qname];
          at = type ? this.instanceOf(file, type) : value ? this.chainAt(file, value, depth + 1) : undefined;
          if (!at) return undefined;
        } else return undefined;
      }
    }
    for (; at && i < via.length; i++) at = this.chainStep(at, via[i]!);
    return at;
  }

  private chainStep(at: ChainAt, step: string): ChainAt | undefined {
    if (step === 'await') return at.at === 'promise' ? this.instanceOf(at.file, at.qname) : at;
    if (step === '()') {
      if (at.at !== 'callable') return undefined;
      const type = at.file.returnTypes?.[at.qname];
      if (type?.startsWith('Promise<')) return { at: 'promise', file: at.file, qname: type.slice(8, -1) };
      return type ? this.instanceOf(at.file, type) : undefined;
    }
    if (at.at !== 'instance') return undefined;
    return this.memberOf(at.file, at.qname, step.slice(1), 0);
  }

  /** The class or interface a type name written in `rec` stands for. */
  private instanceOf(rec: FileRec, type: string): ChainAt | undefined {
    const d = this.lookupName(rec, type.split('.'), TYPE_KINDS, 0);
    if (!d || 'stub' in d || (d.kind !== 'class' && d.kind !== 'interface')) return undefined;
    const file = this.files.get(d.file);
    return file ? { at: 'instance', file, qname: d.qname } : undefined;
  }

  /** Member `name` of class `cls` in `rec` (its bases searched): a typed field's instance, or a method. */
  private memberOf(rec: FileRec, cls: string, name: string, depth: number): ChainAt | undefined {
    const q = `${cls}.${name}`;
    const type = rec.fieldTypes?.[q];
    if (type) return this.instanceOf(rec, type);
    if (this.defIn(rec.path, q, METHOD_KIND)?.kind === 'method')
      return { at: 'callable', file: rec, qname: q };
    if (depth > 5) return undefined;
    for (const base of rec.bases?.[cls] ?? []) {
      const b = this.lookupName(rec, base.split('.'), TYPE_KINDS, 0);
      if (!b || 'stub' in b) continue;
      const bf = this.files.get(b.file);
      const hit = bf ? this.memberOf(bf, b.qname, name, depth + 1) : undefined;
      if (hit) return hit;
    }
    return undefined;
  }

  private unresolvedFound(name: string): { stub: StubNode; confidence: number } {
    return this.unresolved(name) as { stub: StubNode; confidence: number };
  }

  private unresolved(name: string): Target {
    return {
      stub: { uid: externalUid(UNRESOLVED_MODULE, name), kind: 'external', label: name, qualifiedName: name },
      confidence: CONFIDENCE.unresolved,
    };
  }

  private typedMember(rec: FileRec, type: string, member: string): Target | undefined {
    const cls = this.lookupName(rec, type.split('.'), TYPE_KINDS, 0);
    if (!cls) return undefined;
    if ('stub' in cls) {
      return {
        stub: {
          uid: `${cls.stub.uid}::${member}`.replace(/^(code:external:[^:]*(?:::[^:]+)?)::/, '$1.'),
          kind: 'external',
          label: member,
          qualifiedName: `${cls.stub.qualifiedName}.${member}`,
        },
        confidence: CONFIDENCE.typedReceiver,
      };
    }
    const m = this.member(this.files.get(cls.file) ?? rec, cls.qname, member, 0);
    return m ? { ...m, confidence: CONFIDENCE.typedReceiver } : undefined;
  }

  /** A member of class `clsQname` in `rec`, searching base classes (up to 5 levels). */
  private member(rec: FileRec, clsQname: string, name: string, depth: number): Def | undefined {
    // A method first: `interface I { m() }` and `function I() { function m() {} }` share a name.
    const own = this.defIn(rec.path, `${clsQname}.${name}`, METHOD_KIND);
    if (own || depth > 5) return own;
    for (const base of rec.bases?.[clsQname] ?? []) {
      const b = this.lookupName(rec, base.split(/::|\./), TYPE_KINDS, 0);
      if (!b || 'stub' in b) continue;
      const bf = this.files.get(b.file);
      if (!bf) continue;
      const m = this.member(bf, b.qname, name, depth + 1);
      if (m) return m;
    }
    return undefined;
  }

  private defIn(path: string, qname: string, prefer?: ReadonlySet<NodeKind>): Def | undefined {
    const defs = this.files.get(path)?.defs.get(qname);
    if (!defs?.length) return undefined;
    if (prefer) {
      // A namespace merged with a function or class of its name (`function F` + `namespace F { type T }`)
      // is called, constructed and typed as the function or class: the module only holds its members.
      let merged: Def | undefined;
      for (const d of defs) {
        if (!prefer.has(d.kind)) continue;
        if (d.kind !== 'module') return d;
        merged ??= d;
      }
      if (merged) return merged;
    }
    return defs[0];
  }

  /** `Foo`, `Foo.bar` (a member, searching bases), `ns.f` inside a namespace: defined in `rec` itself. */
  private ownDef(
    rec: FileRec,
    parts: string[],
    prefer: ReadonlySet<NodeKind>,
  ): { uid: string; kind: NodeKind; file: string; qname: string; confidence: number } | undefined {
    for (let k = parts.length; k >= 1; k--) {
      const q = dotted(parts, k);
      const d = this.defIn(rec.path, q, k === parts.length ? prefer : TYPE_KINDS);
      if (!d) continue;
      if (k === parts.length) return { ...d, file: rec.path, qname: q, confidence: CONFIDENCE.exact };
      // A function's nested declarations are its locals, not members: `outer.inner()` is not them.
      if (isTsLike(rec.language) && !TYPE_KINDS.has(d.kind)) return undefined;
      const name = parts.slice(k).join('.');
      const m = this.member(rec, q, name, 0);
      if (m) return { ...m, file: rec.path, qname: `${q}.${name}`, confidence: CONFIDENCE.exact };
      return undefined;
    }
    return undefined;
  }

  /**
   * Resolves `parts` (a dotted name) in the scope of `rec`: its own definitions, its import bindings
   * (longest dotted binding first, for Python's `import a.b`), then language rules (Go's package scope,
   * Java's package). Returns the definition with the file and qualified name it was found under.
   */
  private lookupName(
    rec: FileRec,
    parts: string[],
    prefer: ReadonlySet<NodeKind>,
    depth: number,
  ):
    | (
        | { uid: string; kind: NodeKind; file: string; qname: string; confidence: number }
        | { stub: StubNode; confidence: number }
      )
    | undefined {
    if (depth > 8 || parts.length === 0) return undefined;
    const own = this.ownDef(rec, parts, prefer);
    if (own) return own;
    // Import bindings.
    for (let k = parts.length; k >= 1; k--) {
      const local = dotted(parts, k);
      const bnd = rec.bindings.get(local);
      if (!bnd) continue;
      const rest = parts.slice(k);
      // A binding is authoritative: when its module lacks the name, the reference is broken, not global.
      return (
        this.throughBinding(rec, bnd, rest, prefer, depth) ??
        this.unresolvedFound(parts[parts.length - 1] ?? local)
      );
    }
    // `from m import *`, Java's `import a.b.*`, Rust's `use m::*`: every name of m is in scope.
    if (rec.language === 'python' || rec.language === 'java' || rec.language === 'rust') {
      for (const r of rec.reexports) {
        if (r.exported !== '*' || r.module === '') continue;
        const mod = this.resolveModule(rec, r.module);
        if ('stub' in mod) continue;
        for (const f of mod.files) {
          const other = this.files.get(f);
          const hit = other && other !== rec ? this.ownDef(other, parts, prefer) : undefined;
          if (hit) return hit;
        }
      }
    }
    // Go: everything in the package (the directory) is in scope.
    if (rec.language === 'go') {
      for (const p of this.filesInDir(dirOf(rec.path), 'go') ?? []) {
        if (p === rec.path) continue;
        const other = this.files.get(p);
        if (!other || other.pkg !== rec.pkg) continue;
        const d = this.defIn(p, parts.join('.'), prefer) ?? this.defIn(p, parts[0]!, prefer);
        if (d) {
          if (parts.length === 1) return { ...d, file: p, qname: parts[0]!, confidence: CONFIDENCE.exact };
          const m = this.member(other, parts[0]!, parts.slice(1).join('.'), 0);
          if (m) return { ...m, file: p, qname: parts.join('.'), confidence: CONFIDENCE.exact };
        }
      }
    }
    // Java: classes of the same package are in scope without an import.
    if (rec.language === 'java') {
      const files = this.javaModule(rec.pkg ? `${rec.pkg}.${parts[0]}` : (parts[0] ?? ''));
      for (const p of files ?? []) {
        if (p === rec.path) continue;
        const other = this.files.get(p);
        if (!other) continue;
        return this.inFile(other, parts, prefer, CONFIDENCE.exact, depth);
      }
    }
    return undefined;
  }

  private throughBinding(
    rec: FileRec,
    bnd: Binding,
    rest: string[],
    prefer: ReadonlySet<NodeKind>,
    depth: number,
  ):
    | (
        | { uid: string; kind: NodeKind; file: string; qname: string; confidence: number }
        | { stub: StubNode; confidence: number }
      )
    | undefined {
    const mod = this.resolveModule(rec, bnd.module);
    if ('stub' in mod) {
      const name = [...(bnd.imported === '*' ? [] : [bnd.imported]), ...rest].join('.');
      const stub = mod.stub;
      const pkgRoot = stub.kind === 'dependency' ? bnd.module : stub.qualifiedName;
      return {
        stub: name
          ? {
              uid: externalUid(pkgRoot, name),
              kind: 'external',
              label: name.slice(name.lastIndexOf('.') + 1),
              qualifiedName: `${pkgRoot}::${name}`,
            }
          : stub,
        confidence: CONFIDENCE.externalImported,
      };
    }
    // Rust `use a::b` and Python `from a import b` may name a submodule, not a symbol.
    const names =
      bnd.imported === '*'
        ? rest
        : [...(bnd.imported === 'default' ? ['default'] : bnd.imported.split('.')), ...rest];
    for (const f of mod.files) {
      const target = this.files.get(f);
      // `from . import x` inside a package's __init__: the module is the file itself; x is a submodule.
      if (!target || f === rec.path) continue;
      if (names.length === 0)
        return { uid: fileUid(f), kind: 'file', file: f, qname: '', confidence: CONFIDENCE.exact };
      const hit = this.inFile(target, names, prefer, CONFIDENCE.exact, depth + 1);
      if (hit) return hit;
    }
    if ((rec.language === 'python' || rec.language === 'rust') && bnd.imported !== '*') {
      // `from . import x` names the module `.`: the submodule is `.x`, not `..x`.
      const sep = rec.language === 'python' ? (bnd.module.endsWith('.') ? '' : '.') : '::';
      const sub = this.moduleFiles(rec, `${bnd.module}${sep}${bnd.imported}`);
      const f = sub?.[0];
      const target = f ? this.files.get(f) : undefined;
      if (f && target) {
        if (rest.length === 0)
          return { uid: fileUid(f), kind: 'file', file: f, qname: '', confidence: CONFIDENCE.exact };
        return this.inFile(target, rest, prefer, CONFIDENCE.exact, depth + 1);
      }
    }
    return undefined;
  }

  /** `parts` as exported by `rec`: its definitions, then its re-exports (`export … from`, `export *`). */
  private inFile(
    rec: FileRec,
    parts: string[],
    prefer: ReadonlySet<NodeKind>,
    confidence: number,
    depth: number,
  ):
    | (
        | { uid: string; kind: NodeKind; file: string; qname: string; confidence: number }
        | { stub: StubNode; confidence: number }
      )
    | undefined {
    if (depth > 8) return undefined;
    const head = parts[0]!;
    const own = this.ownDef(rec, parts, prefer);
    if (own) return { ...own, confidence };
    // Python modules expose what they import; Rust's `pub use` too (the extractor records only pub uses there).
    const bnd = rec.bindings.get(head);
    if ((rec.language === 'python' || rec.language === 'rust') && bnd) {
      const b = this.throughBinding(rec, bnd, parts.slice(1), prefer, depth + 1);
      if (b) return b;
    }
    for (const r of rec.reexports) {
      if (r.exported !== head && r.exported !== '*') continue;
      if (r.module === '') {
        if (r.exported !== head) continue;
        const hit = this.lookupName(rec, [r.imported, ...parts.slice(1)], prefer, depth + 1);
        if (hit) return hit;
        continue;
      }
      const mod = this.resolveModule(rec, r.module);
      if ('stub' in mod) {
        if (r.exported === '*') continue;
        // Re-exported from a package (or a module that is not there): that module's symbol.
        const name = [...(r.imported === '*' ? [] : [r.imported]), ...parts.slice(1)].join('.');
        const root = mod.stub.kind === 'dependency' ? r.module : mod.stub.qualifiedName;
        return {
          stub: name
            ? {
                uid: externalUid(root, name),
                kind: 'external',
                label: name.slice(name.lastIndexOf('.') + 1),
                qualifiedName: `${root}::${name}`,
              }
            : mod.stub,
          confidence: CONFIDENCE.externalImported,
        };
      }
      for (const f of mod.files) {
        const target = this.files.get(f);
        if (!target) continue;
        if (r.exported === '*') {
          const hit = this.inFile(target, parts, prefer, confidence, depth + 1);
          if (hit && !('stub' in hit)) return hit;
        } else if (r.imported === '*') {
          if (parts.length === 1) return { uid: fileUid(f), kind: 'file', file: f, qname: '', confidence };
          return this.inFile(target, parts.slice(1), prefer, confidence, depth + 1);
        } else return this.inFile(target, [r.imported, ...parts.slice(1)], prefer, confidence, depth + 1);
      }
    }
    return undefined;
  }

  // ---- documents -------------------------------------------------------------------------------

  private link(rec: FileRec, ref: Ref, push: (ref: Ref, t: Target, type?: EdgeType) => void): void {
    if (ref.module === 'code') {
      // Inline code in prose: a repo path, or a symbol name that only one definition carries. A miss
      // is not a broken reference (most inline code is not a name), so it makes no edge.
      const asPath = normalize(ref.name.replace(/^\.\//, ''));
      const relPath = joinPath(dirOf(rec.path), ref.name);
      for (const p of [asPath, relPath]) {
        const f = this.files.get(p);
        if (f) {
          push(ref, { uid: uidOfFile(f), kind: 'file', confidence: CONFIDENCE.typedReceiver }, 'links_to');
          return;
        }
      }
      this.labelIndex ??= this.buildLabelIndex();
      const label = ref.name.slice(ref.name.lastIndexOf('.') + 1);
      const hits = this.labelIndex.get(label) ?? [];
      const exact = hits.filter((h) => h.qname === ref.name || ref.name === label);
      if (exact.length === 1)
        push(ref, { uid: exact[0]!.uid, kind: exact[0]!.kind, confidence: 0.6 }, 'links_to');
      return;
    }
    const hash = ref.name.indexOf('#');
    const rawPath = hash === -1 ? ref.name : ref.name.slice(0, hash);
    const frag = hash === -1 ? '' : ref.name.slice(hash + 1);
    let decoded = rawPath;
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      // Keep the raw text: a stray % is a broken link, reported as an external stub below.
    }
    const target =
      decoded === ''
        ? rec.path
        : decoded.startsWith('/')
          ? normalize(decoded)
          : joinPath(dirOf(rec.path), decoded);
    const file = this.files.get(target);
    if (file) {
      if (decoded !== '')
        push(ref, { uid: uidOfFile(file), kind: 'file', confidence: CONFIDENCE.exact }, 'links_to');
      if (frag) {
        const h = file.defs.get(frag)?.[0] ?? file.defs.get(frag.toLowerCase())?.[0];
        if (h) push(ref, { ...h, confidence: CONFIDENCE.exact }, 'cites_heading');
        else
          push(
            ref,
            {
              stub: {
                uid: externalUid(`${target}#${frag}`),
                kind: 'external',
                label: frag,
                qualifiedName: `${target}#${frag}`,
              },
              confidence: CONFIDENCE.unresolved,
            },
            'cites_heading',
          );
      }
      return;
    }
    const dir = target.replace(/\/$/, '');
    this.filesInDir('', 'markdown'); // builds dirIndex
    for (const key of this.dirIndex?.keys() ?? []) {
      const d = key.slice(key.indexOf('|') + 1);
      if (d === dir || d.startsWith(`${dir}/`)) {
        push(ref, { uid: folderUid(dir), kind: 'folder', confidence: CONFIDENCE.exact }, 'links_to');
        return;
      }
    }
    push(
      ref,
      {
        stub: { uid: externalUid(ref.name), kind: 'external', label: ref.name, qualifiedName: ref.name },
        confidence: CONFIDENCE.unresolved,
      },
      ref.type,
    );
  }

  private buildLabelIndex(): Map<string, { uid: string; kind: NodeKind; qname: string }[]> {
    const idx = new Map<string, { uid: string; kind: NodeKind; qname: string }[]>();
    for (const rec of this.files.values()) {
      if (rec.language === 'markdown') continue;
      for (const [qname, defs] of rec.defs) {
        const label = qname.slice(qname.lastIndexOf('.') + 1);
        let l = idx.get(label);
        if (!l) {
          l = [];
          idx.set(label, l);
        }
        for (const d of defs) l.push({ uid: d.uid, kind: d.kind, qname });
      }
    }
    return idx;
  }

  // ---- tests -----------------------------------------------------------------------------------

  private testsEdge(
    rec: FileRec,
    imported: Set<string>,
    push: (ref: Ref, t: Target, type?: EdgeType) => void,
  ): void {
    const subject = testSubject(rec.path);
    if (subject === undefined) return;
    const ref: Ref = { type: 'tests', from: fileUid(rec.path), name: '', line: 1, col: 1 };
    const candidates = [...imported].filter((p) => p !== rec.path);
    const byName = candidates.filter((p) => stem(p) === subject);
    if (byName.length) {
      for (const p of byName) push(ref, { uid: fileUid(p), kind: 'file', confidence: CONFIDENCE.exact });
      return;
    }
    // Go and Java tests share a package with their subject and need no import: match by name in the directory.
    const sameDir = (this.filesInDir(dirOf(rec.path), rec.language) ?? []).filter(
      (p) => p !== rec.path && stem(p) === subject,
    );
    if (sameDir.length) {
      for (const p of sameDir) push(ref, { uid: fileUid(p), kind: 'file', confidence: CONFIDENCE.inferred });
      return;
    }
    if (candidates.length === 1) push(ref, { uid: fileUid(candidates[0]!), kind: 'file', confidence: 0.5 });
  }
}

/** The first `k` parts joined with dots, without a new array for the usual single part. */
function dotted(parts: string[], k: number): string {
  return k === 1 ? parts[0]! : parts.slice(0, k).join('.');
}

function uidOfFile(f: FileRec): string {
  return f.language === 'markdown' ? docFileUid(f.path) : fileUid(f.path);
}

function stem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  const s = dot === -1 ? base : base.slice(0, dot);
  return s === '__init__' || s === 'index' || s === 'mod' ? (dirOf(path).split('/').pop() ?? s) : s;
}

/** For a test file, the stem of the module it tests; undefined for other files. */
export function testSubject(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1);
  let m = /^(.+?)\.(test|spec)\.[cm]?[jt]sx?$/.exec(base);
  if (m) return m[1];
  m = /^test_(.+)\.py$/.exec(base) ?? /^(.+)_test\.(py|go)$/.exec(base);
  if (m) return m[1];
  m = /^(.+?)Tests?\.java$/.exec(base);
  if (m) return m[1];
  return undefined;
}

function extractorPrefix(l: Language): string {
  switch (l) {
    case 'typescript':
    case 'tsx':
      return 'ts';
    case 'javascript':
      return 'js';
    case 'python':
      return 'py';
    default:
      return l;
  }
}

/** The crate a Rust file belongs to: the directory above its `src/`, or its own directory. */
export function rustCrate(path: string): string {
  const i = path.lastIndexOf('/src/');
  if (i !== -1) return path.slice(0, i);
  return path.startsWith('src/') ? '' : dirOf(path);
}

/** The module path of a Rust file inside its crate: src/a/b.rs → [a, b]; lib.rs, main.rs, mod.rs map to their directory. */
export function rustModPath(path: string): string[] {
  const i = path.lastIndexOf('src/');
  const rel = (i === -1 ? path.slice(path.lastIndexOf('/') + 1) : path.slice(i + 4)).replace(/\.rs$/, '');
  const parts = rel.split('/');
  const last = parts[parts.length - 1];
  if (last === 'mod' || ((last === 'lib' || last === 'main') && parts.length === 1)) parts.pop();
  return parts;
}
