// Languages with a grammar but no full extractor (C#, C/C++, Ruby, PHP, Bash, CSS, PowerShell): the
// file and its top-level symbols, found by declaration node types common to these grammars.
import type { Tree } from 'web-tree-sitter';
import type { Extraction, Language, NodeKind } from '../types.ts';
import { Builder, type Node, signatureOf } from './common.ts';

const KINDS: Record<string, NodeKind> = {
  class_declaration: 'class',
  class_specifier: 'class',
  struct_declaration: 'class',
  struct_specifier: 'class',
  record_declaration: 'class',
  class: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  enum_specifier: 'enum',
  namespace_declaration: 'module',
  file_scoped_namespace_declaration: 'module',
  namespace_definition: 'module',
  module: 'module',
  function_definition: 'function',
  function_declaration: 'function',
  method: 'function',
  singleton_method: 'function',
  function_statement: 'function',
  class_statement: 'class',
  trait_declaration: 'interface',
  type_definition: 'type',
};

/** Containers whose children are still "top level" (namespaces, preprocessor blocks, PHP's program). */
const TRANSPARENT = new Set([
  'declaration_list',
  'preproc_if',
  'preproc_ifdef',
  'linkage_specification',
  'php_tag',
  'program',
  'compilation_unit',
  'translation_unit',
  'body_statement',
]);

export function extractGeneric(path: string, text: string, tree: Tree, _language: Language): Extraction {
  const b = new Builder(path, text);
  const visit = (n: Node, depth: number) => {
    for (const c of n.namedChildren) {
      if (!c) continue;
      const kind = KINDS[c.type];
      if (kind) {
        const name = nameOf(c);
        if (name) {
          b.symbol(kind, name, c, {
            signature: signatureOf(c, c.childForFieldName('body'), text),
            label: name,
          });
          // Namespaces hold the real top-level declarations of C# and C++.
          if (kind === 'module' && depth < 3) {
            const body = c.childForFieldName('body');
            if (body) visit(body, depth + 1);
          }
        }
      } else if (TRANSPARENT.has(c.type) && depth < 3) visit(c, depth + 1);
    }
  };
  visit(tree.rootNode, 0);
  return b.result();
}

function nameOf(n: Node): string | undefined {
  const name = n.childForFieldName('name');
  if (name) return name.text;
  // C/C++ functions keep their name inside the declarator chain.
  let d = n.childForFieldName('declarator');
  for (let i = 0; d && i < 5; i++) {
    if (d.type === 'identifier' || d.type === 'field_identifier' || d.type === 'qualified_identifier')
      return d.text;
    d = d.childForFieldName('declarator');
  }
  return undefined;
}
