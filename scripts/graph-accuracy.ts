// How far the graph's TypeScript `calls` and `imports` edges can be trusted (issue 5): precision and
// recall against the TypeScript language service on a real codebase.
//
//   node --import tsx scripts/graph-accuracy.ts [--root DIR] [--symbols N] [--verbose]
//
// Default root: node_modules/zod/src (zod's TypeScript sources, tests included). For `calls`, a
// deterministic sample of N functions and methods (default 300): the truth is every call site that
// `findReferences` reports for the symbol (a reference that is the callee of a call), the graph's
// answer is every `calls` edge into the symbol's node; a site is its file, line and column. For
// `imports`, every file pair: the truth is `getFileReferences` (the import, export-from, require and
// dynamic-import specifiers that resolve to a file), the graph's answer is its file → file edges.
// Targets: precision ≥ 0.95, recall ≥ 0.85.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { openDatabase } from '../server/db/open.ts';
import { Indexer } from '../server/graph/indexer.ts';
import { Walker } from '../server/graph/walk.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const root = resolve(arg('--root') ?? new URL('../node_modules/zod/src', import.meta.url).pathname);
const wanted = Number(arg('--symbols') ?? 300);
const verbose = process.argv.includes('--verbose');

// 1. The graph.
const db = openDatabase(':memory:');
const walk = { ignoredDirs: ['.git', 'node_modules'] };
const t0 = performance.now();
const indexed = await new Indexer({ repo: root, db, walk }).run({});
console.log(
  `graph: ${indexed.filesSeen} files, ${indexed.nodes} nodes, ${indexed.edges} edges in ${Math.round(performance.now() - t0)} ms`,
);

// 2. The language service over the same TypeScript files.
const tsFiles = new Walker(root, walk)
  .walk()
  .files.map((f) => f.path)
  .filter((p) => /\.(m|c)?[tj]sx?$/.test(p))
  .map((p) => join(root, p));
const tsconfigPath = ts.findConfigFile(root, ts.sys.fileExists);
let options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  allowJs: true,
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

/** Whether the declaration at `pos` is a name bound by an import or re-export (an alias of the symbol). */
function isImportAlias(fileName: string, pos: number): boolean {
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
}

/** Whether the reference at `pos` is the callee of a call (`f()`, `a.f()`, `a?.f()`). */
function isCallee(sf: ts.SourceFile, pos: number): boolean {
  const id = nodeAt(sf, pos);
  if (!id || !ts.isIdentifier(id)) return false;
  let expr: ts.Node = id;
  if (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id) expr = id.parent;
  return ts.isCallExpression(expr.parent) && expr.parent.expression === expr;
}

// 3. calls: a deterministic sample of functions and methods defined in TypeScript files.
const candidates = db
  .prepare(
    `SELECT n.id, n.uid, n.label, n.file_path AS path, n.start_line AS line, n.end_line AS endLine FROM graph_nodes n
     WHERE n.kind IN ('function', 'method') AND n.language IN ('typescript', 'tsx') AND n.label != 'constructor'
     ORDER BY n.uid`,
  )
  .all() as { id: number; uid: string; label: string; path: string; line: number; endLine: number }[];
const step = Math.max(1, Math.floor(candidates.length / wanted));
const sample = candidates.filter((_, i) => i % step === 0).slice(0, wanted);
const callsInto = db.prepare(
  `SELECT s.file_path AS path, e.line, e.col FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id
   WHERE e.target_id = ? AND e.edge_type = 'calls'`,
);

let tp = 0;
let predicted = 0;
let truth = 0;
let measured = 0;
const misses: string[] = [];
const extras: string[] = [];
for (const sym of sample) {
  const abs = join(root, sym.path);
  const sf = program.getSourceFile(abs);
  if (!sf) continue;
  const text = sf.text;
  // The declaration's name: the first whole-word occurrence of the label within the node's lines.
  const startPos = sf.getPositionOfLineAndCharacter(sym.line - 1, 0);
  const endPos =
    sym.endLine < sf.getLineStarts().length
      ? sf.getPositionOfLineAndCharacter(sym.endLine - 1, 0)
      : text.length;
  const re = new RegExp(`\\b${sym.label.replace(/[$]/g, '\\$')}\\b`, 'g');
  re.lastIndex = startPos;
  const m = re.exec(text);
  if (!m || m.index > Math.max(endPos, startPos + 400)) continue;
  const refs = ls.findReferences(abs, m.index) ?? [];
  // Only the group whose definition is this declaration (not interface members it implements).
  const own = refs.filter(
    (r) =>
      (r.definition.fileName === abs && Math.abs(r.definition.textSpan.start - m.index) < 2) ||
      isImportAlias(r.definition.fileName, r.definition.textSpan.start),
  );
  const sites = new Set<string>();
  for (const group of own.length ? own : refs.slice(0, 1)) {
    for (const r of group.references) {
      if (r.isDefinition) continue;
      const rsf = program.getSourceFile(r.fileName);
      if (!rsf || !r.fileName.startsWith(root) || rel(r.fileName).includes('node_modules/')) continue;
      if (!isCallee(rsf, r.textSpan.start)) continue;
      const lc = rsf.getLineAndCharacterOfPosition(r.textSpan.start);
      sites.add(`${rel(r.fileName)}:${lc.line + 1}:${lc.character + 1}`);
    }
  }
  const graphSites = new Set(
    (callsInto.all(sym.id) as { path: string; line: number; col: number }[]).map(
      (e) => `${e.path}:${e.line}:${e.col}`,
    ),
  );
  measured++;
  truth += sites.size;
  predicted += graphSites.size;
  for (const s of graphSites) {
    if (sites.has(s)) tp++;
    else extras.push(`${sym.uid} <- ${s}`);
  }
  for (const s of sites) if (!graphSites.has(s)) misses.push(`${sym.uid} <- ${s}`);
}
const callPrecision = predicted ? tp / predicted : 1;
const callRecall = truth ? tp / truth : 1;

// 4. imports: every file pair.
const inRoot = new Set(tsFiles);
const truthPairs = new Set<string>();
for (const f of tsFiles) {
  for (const r of ls.getFileReferences(f)) {
    if (!inRoot.has(r.fileName) || r.fileName === f) continue;
    truthPairs.add(`${rel(r.fileName)} -> ${rel(f)}`);
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
let itp = 0;
const importExtras: string[] = [];
const importMisses: string[] = [];
for (const p of graphPairs) {
  if (truthPairs.has(p)) itp++;
  else importExtras.push(p);
}
for (const p of truthPairs) if (!graphPairs.has(p)) importMisses.push(p);
const importPrecision = graphPairs.size ? itp / graphPairs.size : 1;
const importRecall = truthPairs.size ? itp / truthPairs.size : 1;

const f2 = (x: number) => x.toFixed(3);
console.log(`root: ${relative(process.cwd(), root) || '.'}`);
console.log(
  `calls:   ${measured} symbols, ${truth} call sites (language service), ${predicted} edges (graph), ${tp} matched` +
    ` → precision ${f2(callPrecision)}, recall ${f2(callRecall)}`,
);
console.log(
  `imports: ${truthPairs.size} file pairs (language service), ${graphPairs.size} (graph), ${itp} matched` +
    ` → precision ${f2(importPrecision)}, recall ${f2(importRecall)}`,
);
if (verbose) {
  console.log('\ncall sites the graph missed (first 40):', misses.slice(0, 40));
  console.log('\ncall edges the language service does not confirm (first 40):', extras.slice(0, 40));
  console.log('\nimport pairs missed:', importMisses.slice(0, 40));
  console.log('\nimport pairs not confirmed:', importExtras.slice(0, 40));
}
const ok = callPrecision >= 0.95 && callRecall >= 0.85 && importPrecision >= 0.95 && importRecall >= 0.85;
console.log(
  ok ? 'targets met (precision ≥ 0.95, recall ≥ 0.85)' : 'targets NOT met (precision ≥ 0.95, recall ≥ 0.85)',
);
process.exitCode = ok ? 0 : 1;
