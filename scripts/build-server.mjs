#!/usr/bin/env node
// Builds the hub's server into dist/: JavaScript the package runs, so nothing compiles TypeScript at
// run time (`npm run build` runs this after the SPA's `vite build`; a clone runs the sources through tsx).
//
// esbuild bundles from server/main.ts, following every import, so a new command module or any other
// new file is picked up without a list here. Two rules keep it generic:
// - Packages in package.json `dependencies` stay external (npm installs them with the package: the
//   native better-sqlite3, and the packages that read their own files at run time, such as the grammar
//   .wasm files); everything else is bundled (devDependencies are build inputs). Bundling is what makes
//   start-up fast: loading fastify, the MCP SDK, TypeBox and their few hundred files one by one costs
//   more than twice the CPU of one parsed bundle.
// - `new URL('<literal path>', import.meta.url)` in our sources keeps its meaning, as bundlers treat it:
//   a module it names (.ts, .mjs, .js, .cjs) handed straight to `new Worker(` or `startThread(` is a
//   worker thread's entry, built as an entry of its own, and the URL is rewritten to the built file;
//   anything else (a directory, an .sql or .json file, a script read as text) is data shipped at its
//   source path, and the URL is rewritten to point there from dist/. Every output
//   file sits directly in dist/, one level below the package root, which is what makes the rewrite a
//   constant. Any other use of import.meta.url (other than createRequire) fails the build, since it
//   would silently mean dist/ instead of the source file's folder.
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const OUT = join(ROOT, 'dist');
const SOURCE_DIRS = ['server', 'shared'].map((d) => join(ROOT, d));
const CODE = /\.(?:ts|mts|js|mjs|cjs)$/;
const URL_REF = /new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g;
const THREAD_CALL = /(?:new\s+Worker|startThread)\(\s*$/;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
// Bundled packages that read files of their own through __dirname at run time, and those files: they
// are copied to dist/<package>/, and __dirname in the package's modules points below there. (Swagger
// UI's page and scripts: bundling it rather than installing it saves loading @fastify/static, glob
// and their dependencies a second time, file by file, at every start.)
const PACKAGE_FILES = {
  // static/swagger-ui.js is the unbundled build of the same UI, which the page never loads.
  '@fastify/swagger-ui': { paths: ['static'], skip: ['static/swagger-ui.js'] },
};

class BuildError extends Error {}

/** dist/<name>.js for a thread entry: its path from the root, without the extension, slashes as dashes. */
const entryName = (file) => relative(ROOT, file).replace(CODE, '').split(sep).join('-');

const isSource = (file) =>
  SOURCE_DIRS.some((d) => file.startsWith(d + sep)) && !file.includes(`${sep}node_modules${sep}`);

const lineOf = (text, index) => text.slice(0, index).split('\n').length;

/** Every `new URL(…, import.meta.url)` in a source file, resolved, with where it is. */
function urlRefs(file, text) {
  const refs = [];
  for (const m of text.matchAll(URL_REF)) {
    const spec = m[2];
    if (!spec.startsWith('./') && !spec.startsWith('../'))
      throw new BuildError(
        `${relative(ROOT, file)}:${lineOf(text, m.index)}: new URL('${spec}', import.meta.url) must be a relative path`,
      );
    const target = resolve(dirname(file), spec);
    if (target !== ROOT && !target.startsWith(ROOT + sep))
      throw new BuildError(
        `${relative(ROOT, file)}:${lineOf(text, m.index)}: '${spec}' points outside the package`,
      );
    // A module is a thread's entry when the URL goes straight to the thread (`new Worker(new URL(…))`,
    // `startThread(new URL(…))`); named any other way (read as text, say) it is data like any file.
    const thread = THREAD_CALL.test(text.slice(Math.max(0, m.index - 40), m.index));
    refs.push({ match: m[0], index: m.index, spec, target, code: CODE.test(target) && thread });
  }
  return refs;
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(full).isDirectory() ? walk(full) : CODE.test(name) ? [full] : [];
  });
}

/** Worker-thread entries: the modules some source names with new URL(…, import.meta.url). */
function threadEntries() {
  const entries = new Map();
  for (const file of SOURCE_DIRS.flatMap(walk)) {
    for (const ref of urlRefs(file, readFileSync(file, 'utf8'))) {
      if (!ref.code) continue;
      if (!existsSync(ref.target))
        throw new BuildError(`${relative(ROOT, file)}: '${ref.spec}' names a module that does not exist`);
      entries.set(entryName(ref.target), ref.target);
    }
  }
  return entries;
}

/** package.json `files` must ship every data path the code refers to (npm always ships package.json). */
function checkShipped(dataRefs) {
  const files = (pkg.files ?? []).map((f) => f.replace(/\/?$/, '/'));
  for (const [rel, from] of dataRefs) {
    if (rel === 'package.json') continue;
    // Not fatal: the SPA is built by its own step, and the hub serves a page that says so without it.
    if (!existsSync(join(ROOT, rel)))
      process.stderr.write(`build-server: warning: ${from} refers to ${rel}, which does not exist yet\n`);
    if (!files.some((f) => `${rel}/`.startsWith(f)))
      throw new BuildError(
        `${from} refers to ${rel}, which package.json "files" does not ship: add it there`,
      );
  }
}

/**
 * Where a package of PACKAGE_FILES really is. esbuild hands plugins real paths (symlinks resolved), so a
 * node_modules that is a link, or a package that is a link into a pnpm store, sits elsewhere than
 * ROOT/node_modules/<name>: both sides are compared as real paths.
 */
const packageDirs = () =>
  Object.keys(PACKAGE_FILES).map((name) => {
    const linked = join(ROOT, 'node_modules', name);
    if (!existsSync(linked))
      throw new BuildError(`${name} is not installed in node_modules (run npm install)`);
    return { name, dir: realpathSync(linked) };
  });

/** __dirname and __filename for the modules of PACKAGE_FILES' packages, as they will sit in dist/. */
const packageDirname = (packages, mapped) => ({
  name: 'package-dirname',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const file = realpathSync(args.path);
      const pkgDir = packages.find((p) => file.startsWith(p.dir + sep));
      if (!pkgDir) return undefined;
      mapped.add(pkgDir.name);
      const rel = `${pkgDir.name}/${relative(pkgDir.dir, file).split(sep).join('/')}`;
      const text = readFileSync(file, 'utf8');
      const dir = dirname(rel);
      const prelude = `var __dirname = __cosDist(${JSON.stringify(dir)}), __filename = __cosDist(${JSON.stringify(rel)});\n`;
      return { contents: prelude + text, loader: 'js' };
    });
  },
});

const importMetaUrl = (dataRefs) => ({
  name: 'import-meta-url',
  setup(b) {
    b.onLoad({ filter: CODE }, (args) => {
      if (!isSource(args.path)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const where = relative(ROOT, args.path);
      let out = '';
      let at = 0;
      for (const ref of urlRefs(args.path, text)) {
        let to;
        if (ref.code) to = `./${entryName(ref.target)}.js`;
        else {
          const rel = relative(ROOT, ref.target).split(sep).join('/');
          dataRefs.set(rel, where);
          to = `../${rel}${ref.spec.endsWith('/') && rel !== '' ? '/' : ''}`;
        }
        out += `${text.slice(at, ref.index)}new URL(${JSON.stringify(to)}, import.meta.url)`;
        at = ref.index + ref.match.length;
      }
      out += text.slice(at);
      const rest = text.replace(URL_REF, '').replace(/createRequire\(\s*import\.meta\.url\s*\)/g, '');
      const stray = /import\.meta\.url/.exec(rest);
      if (stray)
        throw new BuildError(
          `${where}:${lineOf(rest, stray.index)}: import.meta.url means dist/ once bundled; use new URL('<relative path>', import.meta.url) with the path as one quoted literal (no template, no variable) or createRequire(import.meta.url)`,
        );
      return { contents: out, loader: args.path.endsWith('.ts') || args.path.endsWith('.mts') ? 'ts' : 'js' };
    });
  },
});

/** The licences of the bundled packages, which ship inside dist/ and so must carry their notices. */
function thirdPartyLicenses(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  // A text several packages share word for word (the OpenTelemetry packages' Apache-2.0, a dozen
  // times) is written once, under the first of them; the others name it.
  const firstWith = new Map();
  const sections = [...dirs].sort().map((dir) => {
    const p = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(ROOT, dir)).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = file
      ? readFileSync(join(ROOT, dir, file), 'utf8').trim()
      : `(no licence file; package.json says ${p.license ?? 'nothing'})`;
    const title = `${p.name}@${p.version}`;
    const first = firstWith.get(text);
    if (first === undefined) firstWith.set(text, title);
    const body = first === undefined ? text : `The same licence text as ${first}, above.`;
    return `## ${title} (${p.license ?? 'unknown'})\n\n${body}\n`;
  });
  return `# Third-party licences\n\nThe packages below are bundled into dist/ by scripts/build-server.mjs.\n\n${sections.join('\n')}`;
}

async function main() {
  const started = performance.now();
  rmSync(OUT, { recursive: true, force: true });
  const entryPoints = { main: join(ROOT, 'server/main.ts'), ...Object.fromEntries(threadEntries()) };
  const dataRefs = new Map();
  const packages = packageDirs();
  const mapped = new Set();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints,
    outdir: OUT,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${pkg.engines.node.replace(/^>=\s*/, '')}`,
    external: Object.keys(pkg.dependencies ?? {}),
    // Bundled CommonJS calls require(), which an ES module lacks; __cosDist is PACKAGE_FILES' __dirname.
    banner: {
      js: [
        "import { createRequire as __cosCreateRequire } from 'node:module';",
        "import { fileURLToPath as __cosFileURLToPath } from 'node:url';",
        'const require = __cosCreateRequire(import.meta.url);',
        'const __cosDist = (path) => __cosFileURLToPath(new URL(path, import.meta.url));',
      ].join('\n'),
    },
    sourcemap: 'linked',
    // Less text to parse at every start (about a quarter of serve's start-up CPU, measured with
    // bench:startup); names are kept, so stack traces stay readable even without the maps.
    minifyWhitespace: true,
    minifySyntax: true,
    // Stack traces name the source file and line; the sources themselves stay out of the package.
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [importMetaUrl(dataRefs), packageDirname(packages, mapped)],
  });
  checkShipped(dataRefs);
  // A package whose modules missed the mapping would build and then fail at start with `__dirname is
  // not defined`: fail here instead.
  for (const { name, dir } of packages)
    if (!mapped.has(name))
      throw new BuildError(
        `no module of ${name} (${dir}) was bundled with its __dirname mapped; is it still imported, and does esbuild load it from there?`,
      );
  for (const { name, dir: from } of packages) {
    const { paths, skip } = PACKAGE_FILES[name];
    for (const p of paths)
      cpSync(join(from, p), join(OUT, name, p), {
        recursive: true,
        filter: (src) => !skip.includes(relative(from, src).split(sep).join('/')),
      });
  }
  writeFileSync(
    join(OUT, 'cos.js'),
    [
      '#!/usr/bin/env node',
      "// The package's `cos` command (written by scripts/build-server.mjs). Source maps ship beside the",
      '// bundles but are off by default: Node reads each map as its module loads, which costs start-up',
      '// time. NODE_OPTIONS=--enable-source-maps turns them on (worker threads follow) for stack traces',
      '// that name the TypeScript sources.',
      "await import('./main.js');",
      '',
    ].join('\n'),
  );
  chmodSync(join(OUT, 'cos.js'), 0o755);
  writeFileSync(join(OUT, 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses(result.metafile));
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([f]) => !f.endsWith('.map'))
    .reduce((n, [, o]) => n + o.bytes, 0);
  process.stdout.write(
    `dist/: ${Object.keys(entryPoints).length} entries, ${(bytes / 1e6).toFixed(1)} MB of JavaScript, in ${Math.round(performance.now() - started)} ms\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`build-server: ${err instanceof BuildError ? err.message : (err.stack ?? err)}\n`);
  process.exit(1);
});
