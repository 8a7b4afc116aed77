// web-tree-sitter set-up: one runtime per thread, grammars loaded lazily from @vscode/tree-sitter-wasm.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Parser, Language as TsLanguage } from 'web-tree-sitter';
import type { Language } from './types.ts';

const require = createRequire(import.meta.url);
const RUNTIME_WASM = join(dirname(require.resolve('web-tree-sitter')), 'web-tree-sitter.wasm');
const GRAMMAR_DIR = join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');

const GRAMMAR_FILE: Partial<Record<Language, string>> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  // The TSX grammar is a superset of JavaScript with JSX, and handles Flow-free JS and JSX alike.
  javascript: 'tree-sitter-tsx.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  java: 'tree-sitter-java.wasm',
  rust: 'tree-sitter-rust.wasm',
  c_sharp: 'tree-sitter-c-sharp.wasm',
  cpp: 'tree-sitter-cpp.wasm',
  ruby: 'tree-sitter-ruby.wasm',
  php: 'tree-sitter-php.wasm',
  bash: 'tree-sitter-bash.wasm',
  css: 'tree-sitter-css.wasm',
  powershell: 'tree-sitter-powershell.wasm',
};

const EXT_LANGUAGE: Record<string, Language> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.java': 'java',
  '.rs': 'rust',
  '.md': 'markdown',
  '.mdx': 'markdown',
  '.markdown': 'markdown',
  '.cs': 'c_sharp',
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.h': 'cpp',
  '.c': 'cpp',
  '.rb': 'ruby',
  '.php': 'php',
  '.sh': 'bash',
  '.bash': 'bash',
  '.css': 'css',
  '.ps1': 'powershell',
};

const MANIFESTS: Record<string, Language> = {
  'package.json': 'json',
  'pyproject.toml': 'toml',
  'go.mod': 'text',
  'Cargo.toml': 'toml',
};

/** The language of a repo path, or undefined when the indexer does not read it. */
export function languageOf(path: string): Language | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const manifest = MANIFESTS[base];
  if (manifest) return manifest;
  if (/^requirements.*\.txt$/.test(base)) return 'text';
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return EXT_LANGUAGE[base.slice(dot).toLowerCase()];
}

export function hasGrammar(language: Language): boolean {
  return GRAMMAR_FILE[language] !== undefined;
}

// The runtime (155 KB of JavaScript and its WebAssembly) is loaded by the first parse, not on import:
// threads that only need languageOf() (the indexer's, `cos index`'s) never load it.
let runtime: Promise<typeof import('web-tree-sitter')> | undefined;
const languages = new Map<string, Promise<TsLanguage>>();
const parsers = new Map<Language, Promise<Parser | undefined>>();

function loadRuntime(): Promise<typeof import('web-tree-sitter')> {
  runtime ??= import('web-tree-sitter').then(async (wts) => {
    await wts.Parser.init({ locateFile: () => RUNTIME_WASM });
    return wts;
  });
  return runtime;
}

/**
 * A parser for `language`, reused for every file of that language in this thread. The promise is
 * what is cached, so files that arrive while the grammar is still loading share one parser.
 */
export function parserFor(language: Language): Promise<Parser | undefined> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = newParser(language);
    parsers.set(language, parser);
    // A grammar that failed to load is tried again by the next file.
    parser.catch(() => parsers.delete(language));
  }
  return parser;
}

async function newParser(language: Language): Promise<Parser | undefined> {
  const file = GRAMMAR_FILE[language];
  if (!file) return undefined;
  const wts = await loadRuntime();
  let lang = languages.get(file);
  if (!lang) {
    lang = wts.Language.load(join(GRAMMAR_DIR, file));
    languages.set(file, lang);
  }
  const parser = new wts.Parser();
  parser.setLanguage(await lang);
  return parser;
}
