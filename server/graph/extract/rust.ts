import type { Tree } from 'web-tree-sitter';
import type { Extraction } from '../types.ts';
import { extractGeneric } from './generic.ts';

export function extractRust(path: string, text: string, tree: Tree): Extraction {
  return extractGeneric(path, text, tree, 'rust');
}
