// TypeScript 5.x and current JavaScript as real packages write them (effect, @mui/material, zod,
// fastify, this repository): every fixture file under test/fixtures/graph/modern/ parses with no
// error, its symbols and references are in the graph, and the rewrite that gets the pinned grammar
// through keeps every offset, so lines and columns are the file's own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../server/db/open.ts';
import { extractFile } from '../../../server/graph/extract/index.ts';
import { rewriteModernSyntax } from '../../../server/graph/extract/ts-dialect.ts';
import { Indexer } from '../../../server/graph/indexer.ts';
import { languageOf } from '../../../server/graph/parser.ts';
import { diagnose } from '../../../server/graph/queries/doctor.ts';

const REPO = fileURLToPath(new URL('../../fixtures/graph/modern/', import.meta.url));
const db = openDatabase(':memory:');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? files(full) : [relative(REPO, full)];
  });
}

before(async () => {
  await new Indexer({ repo: REPO, db }).run({});
});
after(() => db.close());

const uids = (sql: string, ...args: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .all(...args) as string[];
const edge = (source: string, type: string, target: string) =>
  db
    .prepare(
      `SELECT count(*) FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id JOIN graph_nodes t ON t.id = e.target_id
       WHERE s.uid = ? AND e.edge_type = ? AND t.uid = ?`,
    )
    .pluck()
    .get(source, type, target) as number;

test('every fixture file parses without a syntax error', () => {
  const failed = db.prepare('SELECT path, error FROM graph_files WHERE error IS NOT NULL').all();
  assert.deepEqual(failed, []);
  const indexed = uids('SELECT path FROM graph_files ORDER BY path');
  for (const f of ['src/brand.ts', 'src/resources.ts', 'src/view.tsx', 'src/legacy.js', 'types/augment.d.ts'])
    assert.ok(indexed.includes(f), `${f} indexed`);
});

for (const [name, path, source] of [
  ['variance annotations (in, out, in out; after a comment)', 'src/brand.ts', 'interface Brand<in out K> {}'],
  ['export type * and export type * as', 'src/index.ts', "export type * from './a.ts';"],
  [
    'import attributes on export … from',
    'src/index.ts',
    "export { a } from './a.json' with { type: 'json' };",
  ],
  ['using and await using', 'src/resources.ts', 'async function f() { await using x = g(); }'],
  ['accessor fields, with decorators', 'src/resources.ts', 'class A { @d accessor x = 1; }'],
  ['import("m").T types', 'src/resources.ts', "let e: import('node:fs').Dirent[];"],
  ['type arguments on a tagged template', 'src/resources.ts', 'const r = sql<{ a: 1; b: 2 }>`x`;'],
  ['escaped backticks in a template literal type', 'src/resources.ts', 'type M = `a \\`b\\``;'],
  ['a variable named as', 'src/resources.ts', 'let as = [1]; as = as.filter(Boolean);'],
  ['an anonymous default function signature', 'types/augment.d.ts', 'export default function (): { a: 1 };'],
  [
    'keyof readonly in a mapped type',
    'types/augment.d.ts',
    'type F = { [K in keyof readonly unknown[]]?: 1 };',
  ],
  [
    'overloads one a line after a generic member',
    'src/brand.ts',
    'const m: {\n  <A>(a: A): B<A>\n  <A>(b: A): A\n} = f;',
  ],
  [
    'a property named in on its own line',
    'src/pipeable.ts',
    'interface P {\n  name: string\n  in: "query"\n}',
  ],
  // Declaration files as tsc and other tools emit them (types/emitted.d.ts).
  [
    'a global augmentation inside declare module',
    'types/emitted.d.ts',
    "declare module 'm' {\n  global {\n    interface W { a(): void }\n  }\n}",
  ],
  [
    'escapes in a template literal type',
    'types/emitted.d.ts',
    'type T<S> = S extends `${infer L}$\\{${infer R}\\}` ? L : `a\\nb`;',
  ],
  [
    'an optional destructured first parameter in a function type',
    'types/emitted.d.ts',
    'declare class V { s: ({ b }?: O) => void; }',
  ],
  [
    'a parenthesised union of import types in a declaration file',
    'types/emitted.d.ts',
    "export declare const s: (import('./a').A | import('./a').B)[];",
  ],
  ['export import = require', 'types/emitted.d.ts', "export import E = require('./e');"],
  ['a member named abstract', 'types/emitted.d.ts', 'interface C { abstract?: boolean; }'],
  // Bundled JavaScript (src/bundled.js).
  ['import defer', 'src/index.ts', "import defer * as ns from './m.ts';"],
  ['a source phase import', 'src/bundled.js', "import source wasm from './m.wasm';"],
  ['using as a value', 'src/bundled.js', 'const o = { u: using.bind(null, !1) };'],
  ['a conditional before a fraction', 'src/bundled.js', 'const q = (r) => (r < 1?.5:r);'],
  ['a raw template with an escape that is not one', 'src/bundled.js', 'const t = String.raw`{\\rtf1\\uc1}`;'],
  ['a NUL character in a string', 'src/bundled.js', "const b = ['\u0000'];"],
] as const) {
  test(`parses ${name}`, async () => {
    const language = languageOf(path.replace(/\.d\.ts$/, '.ts'))!;
    const snippet = await extractFile(path, language, source);
    assert.equal(snippet.error, undefined, `snippet: ${source}`);
    const r = db.prepare('SELECT error FROM graph_files WHERE path = ?').pluck().get(path);
    assert.equal(r, null, `${path} holds the same syntax in context`);
  });
}

test('the syntax the grammar already had still parses: satisfies, const type parameters, decorators, JSX, static blocks', async () => {
  for (const [path, source] of [
    [
      'a.ts',
      'export default { port: 1 } satisfies Config;\nfunction f<const T extends readonly unknown[]>(x: T) { return x; }',
    ],
    ['b.ts', '@Component({ selector: "x" })\nexport class A { @Input() name!: string; static { init(); } }'],
    ['c.tsx', 'export const C = <T,>(p: { x: T }) => <div>{String(p.x)}<>frag</></div>;'],
    ['d.js', 'class A { #p = 1; static { A.q = 1; } has(o) { return #p in o; } }'],
  ] as const) {
    const r = await extractFile(path, languageOf(path)!, source);
    assert.equal(r.error, undefined, source);
  }
});

test('a file that still fails after the rewrite reports its first error with line, column and kind', async () => {
  const r = await extractFile('broken.ts', 'typescript', 'export const ok = 1;\nexport function (\n');
  assert.match(r.error ?? '', /^syntax error at line 2, column \d+: (unexpected|missing) /);
});

// A rewrite runs on every file that failed its first parse, on an extraction helper that every project's
// index pass waits for. Rules that tried blanks and comments from every `,` or `;` scanned each
// unterminated comment to the end of the file: 48 KB of `,/*` took 1.8 s and 1 MB would take about 15
// minutes. Each shape below is half a megabyte (the walker reads files up to 1 MB); all of them together
// take about 2 s on an idle machine now, so the limit only catches work that grows with the square again.
test('no shape of file makes the rewrite quadratic', { timeout: 120_000 }, () => {
  const shapes = [
    ',/*',
    ';/*',
    'a//',
    '>\n/*',
    "from 'a' with {",
    '//;global{',
    '*/;global{',
    'a\n  <T>(x: T)//\n',
  ];
  for (const unit of shapes) {
    const text = unit.repeat(Math.ceil((512 * 1024) / unit.length));
    assert.equal(rewriteModernSyntax(text, { ts: true, dts: true }).text.length, text.length, unit);
    assert.equal(rewriteModernSyntax(text).text.length, text.length, unit);
  }
});

test('the rewrite keeps every offset and line break of the file', () => {
  for (const f of files(REPO).filter((p) => /\.(ts|tsx|js)$/.test(p))) {
    const text = readFileSync(join(REPO, f), 'utf8');
    const out = rewriteModernSyntax(text, { ts: f.endsWith('.ts'), dts: f.endsWith('.d.ts') }).text;
    assert.equal(out.length, text.length, f);
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') assert.equal(out[i], '\n', `${f} at ${i}`);
  }
  // A file that parses is never rewritten: the graph reads it as written.
  const clean = 'const using = 1;\nconst x = a < b;\n';
  assert.equal(rewriteModernSyntax(clean).applied.length, 0);
});

test('symbols declared with modern syntax are in the graph', () => {
  const kinds = uids(
    "SELECT kind || ' ' || uid FROM graph_nodes WHERE file_path IN ('src/brand.ts', 'src/resources.ts') AND kind != 'file' ORDER BY uid",
  );
  for (const u of [
    'interface code:interface:src/brand.ts::Brand',
    'interface code:interface:src/brand.ts::Cache',
    'interface code:interface:src/brand.ts::Key',
    'type code:type:src/brand.ts::Thunk',
    'class code:class:src/brand.ts::Ref',
    'method code:method:src/brand.ts::Ref.modify',
    'function code:function:src/brand.ts::map',
    'function code:function:src/brand.ts::nominal',
    'class code:class:src/resources.ts::Store',
    'method code:method:src/resources.ts::Store.load',
    'function code:function:src/resources.ts::drain',
    'function code:function:src/resources.ts::first',
  ])
    assert.ok(kinds.includes(u), `${u} in ${kinds.join(', ')}`);
  assert.deepEqual(
    uids("SELECT uid FROM graph_nodes WHERE file_path = 'types/augment.d.ts' AND kind = 'function'"),
    ['code:function:types/augment.d.ts::default'],
  );
});

test('bundled JavaScript keeps its functions and calls: the using helper, a conditional before a fraction', () => {
  for (const callee of ['usingCtx', 'easeInOut', 'quad'])
    assert.equal(
      edge('code:function:src/bundled.js::run', 'calls', `code:function:src/bundled.js::${callee}`),
      1,
    );
  assert.ok(
    uids("SELECT uid FROM graph_nodes WHERE file_path = 'src/bundled.js'").includes(
      'code:function:src/bundled.js::using',
    ),
  );
});

test('declarations emitted by tools are in the graph: a module with a global augmentation, a class with function-typed fields', () => {
  const got = uids(
    "SELECT uid FROM graph_nodes WHERE file_path = 'types/emitted.d.ts' AND kind != 'file' ORDER BY uid",
  );
  for (const u of [
    'code:function:types/emitted.d.ts::node:buffer.transcode',
    'code:method:types/emitted.d.ts::Virtualizer.measure',
    'code:interface:types/emitted.d.ts::Class',
    'code:function:types/emitted.d.ts::scan',
  ])
    assert.ok(got.includes(u), `${u} in ${got.join(', ')}`);
});

test('calls inside using declarations and for (using …) loops resolve to their functions', () => {
  assert.equal(
    edge('code:method:src/resources.ts::Store.load', 'calls', 'code:function:src/resources.ts::open'),
    2,
  );
  assert.equal(
    edge('code:method:src/resources.ts::Store.load', 'calls', 'code:function:src/resources.ts::openAsync'),
    2,
  );
});

test('a deferred import is an import of its module', () => {
  assert.equal(edge('code:file:src/index.ts', 'imports', 'code:file:src/deferred.ts'), 1);
});

test('import("m").T types are references into m: a package symbol, and a file of the repository', () => {
  assert.equal(
    edge('code:function:src/resources.ts::first', 'returns_type', 'code:external:node:fs::Dirent'),
    1,
  );
  assert.ok(edge('code:file:types/augment.d.ts', 'imports', 'code:file:src/resources.ts') >= 1);
});

test('declare module blocks get well-formed uids, and the doctor finds nothing malformed', () => {
  assert.deepEqual(uids("SELECT uid FROM graph_nodes WHERE kind = 'module' ORDER BY uid"), [
    'code:module:types/augment.d.ts::*.css',
    'code:module:types/augment.d.ts::fastify',
    // `declare module '../src/pipeable.ts'` augments that file: named by its repository path.
    'code:module:types/augment.d.ts::src/pipeable.ts',
    'code:module:types/emitted.d.ts::node:buffer',
  ]);
  assert.deepEqual(
    uids("SELECT uid FROM graph_nodes WHERE uid LIKE '%../%' AND kind NOT IN ('external', 'dependency')"),
    [],
  );
  const malformed = diagnose(db, REPO, 5).find((f) => f.category === 'malformed_uid_path');
  assert.equal(malformed?.count ?? 0, 0, JSON.stringify(malformed?.sample));
});

test('Markdown front matter is not read as a heading', () => {
  assert.deepEqual(
    uids(
      "SELECT uid FROM graph_nodes WHERE kind = 'heading' AND file_path = 'docs/guide.md' ORDER BY start_line",
    ),
    ['doc:heading:docs/guide.md#guide', 'doc:heading:docs/guide.md#setext-heading'],
  );
  const line = db
    .prepare("SELECT start_line FROM graph_nodes WHERE uid = 'doc:heading:docs/guide.md#guide'")
    .pluck()
    .get();
  assert.equal(line, 7);
});
