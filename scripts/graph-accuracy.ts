// How far the graph's TypeScript/JavaScript `calls` and `imports` edges can be trusted (issues 5 and 22):
// precision and recall against the TypeScript language service on real codebases.
//
//   node --import tsx scripts/graph-accuracy.ts [corpus …] [--root DIR] [--symbols N] [--verbose]
//   corpora: zod (node_modules/zod/src, the default), effect (effect@4.1.0's src/), mui (@mui/material@9.5.0:
//   its JavaScript and declarations); effect and mui are the bench's pinned installs in $COS_BENCH_CACHE
//   (scripts/lib/registry-corpora.ts), installed from the npm registry on first use. --root measures any
//   directory instead.
//
// calls: a deterministic sample of N functions and methods of the graph (default 300). A call edge is
// (caller, site, callee); both sides name the caller the same way, from their own syntax trees: the
// innermost enclosing named declaration (see callerOf). The truth is every reference to the callee
// that `findReferences` reports in call position (`f()`, `a.f()`, `a?.f()`, f`…`), with its caller;
// the graph's answer is every `calls` edge into the callee's node, with the edge's source node. A
// site is its file, line and column. The figures without the caller (site only) are printed beside.
// imports: every file pair; the truth is `getFileReferences` (the import, export-from, require and
// dynamic-import specifiers that resolve to a file), the graph's answer its file → file edges.
// Both sides only count sites in the files the graph indexes (the walker's list: files over 1 MB or
// minified are left out by design). Targets: calls precision ≥ 0.95, recall ≥ 0.90; imports
// precision ≥ 0.95, recall ≥ 0.85.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { openDatabase } from '../server/db/open.ts';
import { Indexer } from '../server/graph/indexer.ts';
import { Walker } from '../server/graph/walk.ts';
import { isRegistryCorpus, registryPackage } from './lib/registry-corpora.ts';

const TARGETS = { callPrecision: 0.95, callRecall: 0.9, importPrecision: 0.95, importRecall: 0.85 };

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const wanted = Number(arg('--symbols') ?? 300);
const verbose = args.includes('--verbose');
const valued = new Set(['--root', '--symbols']);
const named = args.filter((a, i) => !a.startsWith('--') && !valued.has(args[i - 1] ?? ''));

/**
 * The directory a corpus name stands for. @mui/material ships each module three times: CommonJS
 * (.js), ES modules (.mjs) and declarations (.d.ts, .d.mts). Where a declaration sits beside the
 * code, the language service binds `import … from './x.mjs'` to `x.d.mts`, while a call graph binds
 * it to the code that runs; so the mui corpus is a copy without the declaration files, for both sides.
 */
function corpusRoot(name: string): string {
  if (name === 'zod') return new URL('../node_modules/zod/src', import.meta.url).pathname;
  if (name === 'effect') return join(registryPackage('effect'), 'src');
  if (name === 'mui') {
    const copy = mkdtempSync(join(tmpdir(), 'cos-accuracy-mui-'));
    cpSync(registryPackage('mui'), copy, { recursive: true, filter: (src) => !/\.d\.[cm]?ts$/.test(src) });
    process.on('exit', () => rmSync(copy, { recursive: true, force: true }));
    return copy;
  }
  throw new Error(`unknown corpus "${name}": use zod, effect, mui, or --root DIR`);
}

const roots: { name: string; root: string }[] = arg('--root')
  ? [{ name: relative(process.cwd(), resolve(arg('--root')!)) || '.', root: resolve(arg('--root')!) }]
  : (named.length ? named : ['zod']).map((name) => {
      if (!isRegistryCorpus(name) && name !== 'zod')
        throw new Error(`unknown corpus "${name}": use zod, effect, mui, or --root DIR`);
      return { name, root: corpusRoot(name) };
    });

// ---- the caller, as the graph names it, read from the TypeScript syntax tree ---------------------

const isFunctionValue = (n: ts.Node | undefined): n is ts.ArrowFunction | ts.FunctionExpression =>
  !!n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));

/** A class whose members are named: a declaration, or a class expression with a name or a variable's. */
function classIsNamed(c: ts.ClassLikeDeclaration): boolean {
  if (c.name) return true;
  if (ts.isClassDeclaration(c)) return true; // `export default class {}`
  return ts.isVariableDeclaration(c.parent) && ts.isIdentifier(c.parent.name);
}

function isModuleLevel(d: ts.VariableDeclaration): boolean {
  const stmt = d.parent?.parent;
  return (
    !!stmt && ts.isVariableStatement(stmt) && (ts.isSourceFile(stmt.parent) || ts.isModuleBlock(stmt.parent))
  );
}

/** A value under parentheses, `as T` and `satisfies T`. */
function unwrap(n: ts.Node | undefined): ts.Node | undefined {
  while (n && (ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isSatisfiesExpression(n)))
    n = n.expression;
  return n;
}

/**
 * How deep an object literal is in a module-level constant's value (`const api = { users: { … } }`: 0,
 * then 1), for the objects whose function-valued members the graph makes methods of; undefined for others.
 */
function objectDepth(o: ts.Node): number | undefined {
  if (!ts.isObjectLiteralExpression(o)) return undefined;
  let p = o.parent;
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p)))
    p = p.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name) && isModuleLevel(p)) return 0;
  if (p && ts.isPropertyAssignment(p)) {
    const d = objectDepth(p.parent);
    return d !== undefined && d < 3 ? d + 1 : undefined;
  }
  return undefined;
}

/** A member's name as the graph spells it: identifiers, and strings that could be one. */
function memberName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) && /^[A-Za-z_$][\w$]*$/.test(name.text)) return name.text;
  return undefined;
}

/** Whether a member of an object literal is one the graph names (its object is a constant's value). */
const inNamedObject = (n: ts.Node): boolean => objectDepth(n.parent) !== undefined;

/**
 * The segment a declaration adds to a qualified name, or undefined for a node that is not a named
 * declaration (an anonymous function, an object literal, a block): what the graph makes a node of.
 */
function segmentOf(n: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(n)) return n.name?.text ?? 'default';
  if (ts.isClassDeclaration(n)) return n.name?.text ?? 'default';
  if (ts.isClassExpression(n)) {
    if (n.name) return n.name.text;
    return undefined; // named by its variable, or anonymous
  }
  if (ts.isInterfaceDeclaration(n)) return n.name.text;
  if (ts.isModuleDeclaration(n)) return ts.isIdentifier(n.name) ? n.name.text : n.name.text;
  if (
    ts.isMethodDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n) ||
    ts.isConstructorDeclaration(n)
  ) {
    const cls = n.parent;
    if (ts.isObjectLiteralExpression(cls) && !ts.isConstructorDeclaration(n))
      return inNamedObject(n) ? memberName(n.name) : undefined;
    if (!ts.isClassLike(cls) || !classIsNamed(cls)) return undefined; // object literal, anonymous class
    return ts.isConstructorDeclaration(n) ? 'constructor' : n.name.getText();
  }
  if (ts.isPropertyDeclaration(n)) {
    if (!isFunctionValue(n.initializer) || !classIsNamed(n.parent as ts.ClassLikeDeclaration))
      return undefined;
    return n.name.getText();
  }
  if (ts.isPropertyAssignment(n) && inNamedObject(n)) {
    const value = unwrap(n.initializer);
    if (isFunctionValue(value)) return memberName(n.name);
    // A nested object names its members (`api.users.list`) without being a node.
    return value && ts.isObjectLiteralExpression(value) && objectDepth(value) !== undefined
      ? memberName(n.name)
      : undefined;
  }
  if ((ts.isMethodSignature(n) || ts.isPropertySignature(n)) && ts.isInterfaceDeclaration(n.parent))
    return n.name.getText();
  if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) {
    const init = n.initializer;
    if (isFunctionValue(init)) return n.name.text;
    if (init && ts.isClassExpression(init)) return init.name ? undefined : n.name.text;
    return isModuleLevel(n) ? n.name.text : undefined;
  }
  if (ts.isFunctionExpression(n) && n.name) {
    // A named function expression is named by its variable or field when it is one's value.
    const p = n.parent;
    if (
      (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) ||
      ts.isPropertyDeclaration(p) ||
      (ts.isPropertyAssignment(p) && inNamedObject(p))
    )
      return undefined;
    return n.name.text;
  }
  if (isFunctionValue(n) && ts.isExportAssignment(n.parent)) return 'default';
  return undefined;
}

/** The graph's node kind of a named declaration (what its uid holds). */
function kindOf(n: ts.Node): 'function' | 'class' | 'method' | 'other' {
  if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n)) return 'function';
  if (ts.isClassDeclaration(n) || ts.isClassExpression(n)) return 'class';
  if (ts.isVariableDeclaration(n)) {
    if (isFunctionValue(n.initializer)) return 'function';
    return n.initializer && ts.isClassExpression(n.initializer) ? 'class' : 'other';
  }
  if (
    ts.isMethodDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isPropertyDeclaration(n) ||
    ts.isMethodSignature(n) ||
    ts.isPropertySignature(n)
  )
    return 'method';
  if (ts.isPropertyAssignment(n)) return isFunctionValue(unwrap(n.initializer)) ? 'method' : 'other';
  return 'other';
}

/**
 * Whether the graph declares `n` with the module's statements (at the top of the file or of a
 * namespace, or as a member of such a class): those merge by name (overloads); what is nested in a
 * function or an expression takes `name@2`, `name@3`… when its name is taken.
 */
function isModuleDeclaration(n: ts.Node): boolean {
  const atTop = (s: ts.Node) => ts.isSourceFile(s.parent) || ts.isModuleBlock(s.parent);
  if (ts.isVariableDeclaration(n)) return isModuleLevel(n);
  if (ts.isClassExpression(n)) return ts.isVariableDeclaration(n.parent) && isModuleLevel(n.parent);
  if (ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n)) return atTop(n);
  return !ts.isFunctionExpression(n);
}

interface Names {
  /** The qualified name the graph gives each named declaration. */
  of: Map<ts.Node, string>;
  /** Where each node's declarations are (`kind qname` → positions of their names), for findReferences. */
  at: Map<string, number[]>;
}

const namesCache = new WeakMap<ts.SourceFile, Names>();

/** The graph's names for a file's declarations, read from the TypeScript syntax tree. */
function namesOf(sf: ts.SourceFile): Names {
  const cached = namesCache.get(sf);
  if (cached) return cached;
  const names: Names = { of: new Map(), at: new Map() };
  const taken = new Set<string>();
  const declared: { n: ts.Node; seg: string; parent: ts.Node | undefined }[] = [];
  const visit = (n: ts.Node, parent: ts.Node | undefined, prefix: string) => {
    const seg = segmentOf(n);
    if (seg !== undefined) {
      declared.push({ n, seg, parent });
      // Module declarations are never renamed: their names as written are taken first.
      if (isModuleDeclaration(n)) taken.add(`${kindOf(n)} ${prefix}${seg}`);
      ts.forEachChild(n, (c) => visit(c, n, `${prefix}${seg}.`));
    } else ts.forEachChild(n, (c) => visit(c, parent, prefix));
  };
  visit(sf, undefined, '');
  // In document order (a parent before its children): `name@N` for a nested one whose name is taken.
  for (const { n, seg, parent } of declared) {
    const base = parent ? `${names.of.get(parent)}.${seg}` : seg;
    const kind = kindOf(n);
    let q = base;
    if (!isModuleDeclaration(n) && (kind === 'function' || kind === 'class')) {
      for (let i = 2; taken.has(`${kind} ${q}`); i++) q = `${base}@${i}`;
      taken.add(`${kind} ${q}`);
    }
    names.of.set(n, q);
    const key = `${kind} ${q}`;
    const name = (n as { name?: ts.Node }).name;
    const at = name ? name.getStart(sf) : n.getStart(sf);
    const list = names.at.get(key);
    if (list) list.push(at);
    else names.at.set(key, [at]);
  }
  namesCache.set(sf, names);
  return names;
}

/** The caller of a call, as the graph names it: the innermost named declaration around it ('' for the file). */
function callerOf(sf: ts.SourceFile, call: ts.Node): string {
  const { of } = namesOf(sf);
  for (let p: ts.Node | undefined = call.parent; p && !ts.isSourceFile(p); p = p.parent) {
    const q = of.get(p);
    if (q !== undefined) return q;
  }
  return '';
}

function nodeAt(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (n: ts.Node) => {
    if (pos >= n.getStart(sf) && pos < n.getEnd()) {
      found = n;
      ts.forEachChild(n, visit);
    }
  };
  visit(sf);
  return found;
}

/** The call a reference at `pos` is the callee of (`f()`, `a.f()`, `a?.f()`, f`…`), if it is one. */
function callOf(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  const id = nodeAt(sf, pos);
  if (!id || !ts.isIdentifier(id)) return undefined;
  let expr: ts.Node = id;
  if (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id) expr = id.parent;
  const p = expr.parent;
  if (ts.isCallExpression(p) && p.expression === expr) return p;
  if (ts.isTaggedTemplateExpression(p) && p.tag === expr) return p;
  return undefined;
}

// ---- one corpus ----------------------------------------------------------------------------------

interface Figures {
  name: string;
  files: number;
  symbols: number;
  unlocated: number;
  truth: number;
  predicted: number;
  matched: number;
  siteMatched: number;
  truthSites: number;
  predictedSites: number;
  importTruth: number;
  importPredicted: number;
  importMatched: number;
}

async function measure(name: string, root: string): Promise<Figures> {
  if (!existsSync(root)) throw new Error(`${root} does not exist`);
  // 1. The graph.
  const db = openDatabase(':memory:');
  const walk = { ignoredDirs: ['.git', 'node_modules'] };
  const t0 = performance.now();
  const indexed = await new Indexer({ repo: root, db, walk }).run({});
  console.log(
    `[${name}] graph: ${indexed.filesSeen} files, ${indexed.nodes} nodes, ${indexed.edges} edges in ${Math.round(performance.now() - t0)} ms`,
  );

  // 2. The language service over the same TypeScript and JavaScript files.
  const tsFiles = new Walker(root, walk)
    .walk()
    .files.map((f) => f.path)
    .filter((p) => /\.(m|c)?[tj]sx?$/.test(p))
    .map((p) => join(root, p));
  const indexedFiles = new Set(tsFiles);
  const tsconfigPath = ts.findConfigFile(root, ts.sys.fileExists);
  let options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    allowJs: true,
    jsx: ts.JsxEmit.Preserve,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  if (tsconfigPath?.startsWith(root)) {
    const cfg = ts.parseJsonConfigFileContent(
      ts.readConfigFile(tsconfigPath, ts.sys.readFile).config,
      ts.sys,
      root,
    );
    options = { ...cfg.options, noEmit: true, types: [] };
  }
  const texts = new Map<string, string>();
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => tsFiles,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => {
      if (!ts.sys.fileExists(f)) return undefined;
      let text = texts.get(f);
      if (text === undefined) {
        text = readFileSync(f, 'utf8');
        texts.set(f, text);
      }
      return ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
  const program = ls.getProgram()!;
  const rel = (abs: string) => relative(root, abs).split('\\').join('/');

  /** Whether the declaration at `pos` is a name bound by an import or re-export (an alias of the symbol). */
  const isImportAlias = (fileName: string, pos: number): boolean => {
    const sf = program.getSourceFile(fileName);
    const id = sf ? nodeAt(sf, pos) : undefined;
    const p = id?.parent;
    return (
      !!p &&
      (ts.isImportSpecifier(p) ||
        ts.isImportClause(p) ||
        ts.isNamespaceImport(p) ||
        ts.isExportSpecifier(p) ||
        ts.isImportEqualsDeclaration(p))
    );
  };

  // 3. calls: a deterministic sample of functions and methods.
  const candidates = db
    .prepare(
      `SELECT n.id, n.uid, n.kind, n.qualified_name AS qname, n.file_path AS path FROM graph_nodes n
       WHERE n.kind IN ('function', 'method') AND n.language IN ('typescript', 'tsx', 'javascript')
         AND n.label != 'constructor'
       ORDER BY n.uid`,
    )
    .all() as { id: number; uid: string; kind: string; qname: string; path: string }[];
  const step = Math.max(1, Math.floor(candidates.length / wanted));
  const sample = candidates.filter((_, i) => i % step === 0).slice(0, wanted);
  const callsInto = db.prepare(
    `SELECT s.file_path AS path, s.kind, s.qualified_name AS qname, e.line, e.col FROM graph_edges e
     JOIN graph_nodes s ON s.id = e.source_id WHERE e.target_id = ? AND e.edge_type = 'calls'`,
  );

  const f: Figures = {
    name,
    files: indexed.filesSeen,
    symbols: 0,
    unlocated: 0,
    truth: 0,
    predicted: 0,
    matched: 0,
    siteMatched: 0,
    truthSites: 0,
    predictedSites: 0,
    importTruth: 0,
    importPredicted: 0,
    importMatched: 0,
  };
  const misses: string[] = [];
  const extras: string[] = [];
  for (const sym of sample) {
    const abs = join(root, sym.path);
    const sf = program.getSourceFile(abs);
    if (!sf) continue;
    const at = namesOf(sf).at.get(`${sym.kind} ${sym.qname}`);
    if (!at) {
      f.unlocated++;
      if (verbose) console.log(`  not located: ${sym.uid}`);
      continue;
    }
    // A node stands for every declaration of its name (overloads, merged declarations): the references
    // of each, only the group whose definition is that declaration (not interface members it implements).
    const groups = at.flatMap((pos) => {
      const refs = ls.findReferences(abs, pos) ?? [];
      const own = refs.filter(
        (r) =>
          (r.definition.fileName === abs && Math.abs(r.definition.textSpan.start - pos) < 2) ||
          isImportAlias(r.definition.fileName, r.definition.textSpan.start),
      );
      return own.length ? own : refs.slice(0, 1);
    });
    // An object literal's method is also reported at every call through the type it was written to
    // (`const Proto: Pipeable = { pipe() {…} }`: each `x.pipe()` on a Pipeable), which the graph gives the
    // interface's method, as it does for a class method behind an interface (whose calls through the
    // interface findReferences lists apart, and the groups above leave out). Only the calls whose
    // definition is this declaration count for it, the same measure.
    const inObject = at.some((pos) => {
      const decl = nodeAt(sf, pos)?.parent;
      return !!decl && ts.isObjectLiteralExpression(decl.parent);
    });
    const direct = (fileName: string, pos: number) =>
      (ls.getDefinitionAtPosition(fileName, pos) ?? []).some(
        (d) => d.fileName === abs && at.some((p) => Math.abs(d.textSpan.start - p) < 2),
      );
    const truth = new Set<string>();
    const truthSites = new Set<string>();
    for (const group of groups) {
      for (const r of group.references) {
        if (r.isDefinition || !indexedFiles.has(r.fileName)) continue;
        if (inObject && !direct(r.fileName, r.textSpan.start)) continue;
        const rsf = program.getSourceFile(r.fileName);
        const call = rsf ? callOf(rsf, r.textSpan.start) : undefined;
        if (!rsf || !call) continue;
        const lc = rsf.getLineAndCharacterOfPosition(r.textSpan.start);
        const site = `${rel(r.fileName)}:${lc.line + 1}:${lc.character + 1}`;
        truthSites.add(site);
        truth.add(`${site} in ${callerOf(rsf, call) || '(file)'}`);
      }
    }
    const graph = new Set<string>();
    const graphSites = new Set<string>();
    for (const e of callsInto.all(sym.id) as {
      path: string;
      kind: string;
      qname: string;
      line: number;
      col: number;
    }[]) {
      const site = `${e.path}:${e.line}:${e.col}`;
      graphSites.add(site);
      graph.add(`${site} in ${e.kind === 'file' ? '(file)' : e.qname}`);
    }
    f.symbols++;
    f.truth += truth.size;
    f.predicted += graph.size;
    f.truthSites += truthSites.size;
    f.predictedSites += graphSites.size;
    for (const s of graph) {
      if (truth.has(s)) f.matched++;
      else extras.push(`${sym.uid} <- ${s}`);
    }
    for (const s of graphSites) if (truthSites.has(s)) f.siteMatched++;
    for (const s of truth) if (!graph.has(s)) misses.push(`${sym.uid} <- ${s}`);
  }

  // 4. imports: every file pair.
  const truthPairs = new Set<string>();
  for (const file of tsFiles) {
    for (const r of ls.getFileReferences(file)) {
      if (!indexedFiles.has(r.fileName) || r.fileName === file) continue;
      truthPairs.add(`${rel(r.fileName)} -> ${rel(file)}`);
    }
  }
  const tsPaths = new Set(tsFiles.map(rel));
  const graphPairs = new Set(
    (
      db
        .prepare(
          `SELECT DISTINCT s.file_path AS a, t.file_path AS b FROM graph_edges e
           JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
           WHERE e.edge_type = 'imports' AND t.kind = 'file'`,
        )
        .all() as { a: string; b: string }[]
    )
      .filter((p) => tsPaths.has(p.a) && tsPaths.has(p.b) && p.a !== p.b)
      .map((p) => `${p.a} -> ${p.b}`),
  );
  const importExtras: string[] = [];
  const importMisses: string[] = [];
  for (const p of graphPairs) {
    if (truthPairs.has(p)) f.importMatched++;
    else importExtras.push(p);
  }
  for (const p of truthPairs) if (!graphPairs.has(p)) importMisses.push(p);
  f.importTruth = truthPairs.size;
  f.importPredicted = graphPairs.size;
  db.close();

  if (verbose) {
    const bySymbol = new Map<string, number>();
    for (const m of misses) {
      const uid = m.slice(0, m.indexOf(' <- '));
      bySymbol.set(uid, (bySymbol.get(uid) ?? 0) + 1);
    }
    console.log(
      `\n[${name}] symbols with the most missed call edges:`,
      [...bySymbol].sort((a, b) => b[1] - a[1]).slice(0, 20),
    );
    console.log(`\n[${name}] call edges the graph missed (first 60):`, misses.slice(0, 60));
    console.log(
      `\n[${name}] call edges the language service does not confirm (first 60):`,
      extras.slice(0, 60),
    );
    console.log(`\n[${name}] import pairs missed:`, importMisses.slice(0, 40));
    console.log(`\n[${name}] import pairs not confirmed:`, importExtras.slice(0, 40));
  }
  return f;
}

const ratio = (a: number, b: number) => (b ? a / b : 1);
const f3 = (x: number) => x.toFixed(3);
const results: Figures[] = [];
for (const { name, root } of roots) results.push(await measure(name, root));

console.log(
  `\nload average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  '| corpus | files | symbols | call edges (LS / graph / matched) | calls precision / recall | site only | imports precision / recall |',
);
console.log('|---|---|---|---|---|---|---|');
let ok = true;
for (const f of results) {
  const p = ratio(f.matched, f.predicted);
  const r = ratio(f.matched, f.truth);
  const ip = ratio(f.importMatched, f.importPredicted);
  const ir = ratio(f.importMatched, f.importTruth);
  ok &&=
    p >= TARGETS.callPrecision &&
    r >= TARGETS.callRecall &&
    ip >= TARGETS.importPrecision &&
    ir >= TARGETS.importRecall;
  console.log(
    `| ${f.name} | ${f.files} | ${f.symbols}${f.unlocated ? ` (+${f.unlocated} not located)` : ''} | ` +
      `${f.truth} / ${f.predicted} / ${f.matched} | ${f3(p)} / ${f3(r)} | ` +
      `${f3(ratio(f.siteMatched, f.predictedSites))} / ${f3(ratio(f.siteMatched, f.truthSites))} | ` +
      `${f3(ip)} / ${f3(ir)} (${f.importTruth} pairs) |`,
  );
}
const targets = `calls precision ≥ ${TARGETS.callPrecision}, recall ≥ ${TARGETS.callRecall}; imports precision ≥ ${TARGETS.importPrecision}, recall ≥ ${TARGETS.importRecall}`;
console.log(ok ? `targets met (${targets})` : `targets NOT met (${targets})`);
process.exitCode = ok ? 0 : 1;
