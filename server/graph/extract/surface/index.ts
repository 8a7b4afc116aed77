// The API surface of a file (issue 31): routes, MCP tools, CLI commands and event handlers its code
// registers, added to its extraction as nodes with `handles` references to their handlers, and the
// entry points a runtime starts (`metadata.entry` on the node). One recogniser per ecosystem; each reads
// the tree the extractor already parsed, so the surface costs no second parse.
import type { Tree } from 'web-tree-sitter';
import type { Extraction, Language } from '../../types.ts';
import { SurfaceBuilder } from './common.ts';
import { recogniseGo } from './go.ts';
import { recogniseJava } from './java.ts';
import { recogniseJavaScript } from './javascript.ts';
import { recognisePackageJson } from './manifest.ts';
import { recognisePython } from './python.ts';

/** Adds the surface of a parsed file to its extraction (in place). */
export function addSurface(
  path: string,
  language: Language,
  text: string,
  tree: Tree,
  ex: Extraction,
): Extraction {
  const s = new SurfaceBuilder(path, text, ex);
  const nodes = ex.nodes.length;
  const refs = ex.facts.refs.length;
  try {
    recognise(s, language, tree);
  } catch {
    // A recogniser that trips on odd syntax costs the file its surface, never its symbols.
    ex.nodes.length = nodes;
    ex.facts.refs.length = refs;
  }
  return ex;
}

function recognise(s: SurfaceBuilder, language: Language, tree: Tree): void {
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript':
      recogniseJavaScript(s, tree);
      break;
    case 'python':
      recognisePython(s, tree);
      break;
    case 'go':
      recogniseGo(s, tree);
      break;
    case 'java':
      recogniseJava(s, tree);
      break;
    default:
      break;
  }
}

/** The entry points a manifest declares (package.json `bin`, `main`), on its file node. */
export function addManifestSurface(path: string, text: string, ex: Extraction): Extraction {
  if (path === 'package.json' || path.endsWith('/package.json')) recognisePackageJson(path, text, ex);
  return ex;
}
