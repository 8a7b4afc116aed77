// Extraction dispatch: the language of a file picks its extractor. Every extractor is a pure function
// of (path, text); the tree-sitter ones share one parser per language in this thread.
import type { Parser, Tree } from 'web-tree-sitter';
import { hasGrammar, parserFor } from '../parser.ts';
import type { Extraction, Language } from '../types.ts';
import { Builder, syntaxError } from './common.ts';
import { extractGeneric } from './generic.ts';
import { extractGo } from './go.ts';
import { extractJava } from './java.ts';
import { extractManifest } from './manifest.ts';
import { extractMarkdown } from './markdown.ts';
import { extractPython } from './python.ts';
import { extractRust } from './rust.ts';
import { addManifestSurface, addSurface } from './surface/index.ts';
import { rewriteModernSyntax } from './ts-dialect.ts';
import { extractTypeScript } from './typescript.ts';

export async function extractFile(path: string, language: Language, text: string): Promise<Extraction> {
  if (language === 'markdown') return extractMarkdown(path, text);
  if (language === 'json' || language === 'toml' || language === 'text')
    return addManifestSurface(path, text, extractManifest(path, text));
  if (!hasGrammar(language)) return new Builder(path, text).result();
  const parser = await parserFor(language);
  if (!parser) return new Builder(path, text).result();
  const tree = parser.parse(text);
  if (!tree) return new Builder(path, text).result('parser returned no tree');
  const state = { tree };
  try {
    const ex = extractParsed(path, language, text, parser, state);
    // The surface (routes, tools, commands, events) read from the tree the extractor read.
    return addSurface(path, language, text, state.tree, ex);
  } finally {
    state.tree.delete();
  }
}

/** `state.tree` is replaced when the file is parsed again with newer syntax rewritten. */
function extractParsed(
  path: string,
  language: Language,
  text: string,
  parser: Parser,
  state: { tree: Tree },
): Extraction {
  const tree = state.tree;
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript': {
      if (!tree.rootNode.hasError) return extractTypeScript(path, text, tree);
      // Syntax newer than the grammar: parse again with it rewritten in place (same offsets).
      const dialect = rewriteModernSyntax(text, {
        ts: language === 'typescript',
        dts: /\.d\.[cm]?ts$/.test(path),
      });
      if (dialect.applied.length === 0) return extractTypeScript(path, text, tree);
      const again = parser.parse(dialect.text);
      if (!again) return extractTypeScript(path, text, tree);
      tree.delete();
      state.tree = again;
      return extractTypeScript(path, text, again, dialect);
    }
    case 'python':
      return extractPython(path, text, tree);
    case 'go':
      return extractGo(path, text, tree);
    case 'java':
      return extractJava(path, text, tree);
    case 'rust':
      return extractRust(path, text, tree);
    default: {
      const r = extractGeneric(path, text, tree, language);
      const err = syntaxError(tree.rootNode);
      return err ? { ...r, error: err } : r;
    }
  }
}
