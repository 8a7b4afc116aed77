// Graph uids (DESIGN.md): folder:<path>, code:file:<path>, code:<kind>:<path>::<qualified.name>,
// doc:file:<path>, doc:heading:<path>#<slug>, code:external:<module>[::name]. Dependencies declared in
// a manifest are code:dependency:<name>.
import type { NodeKind } from './types.ts';

/** The repo root is `folder:.`. */
export const folderUid = (path: string): string => `folder:${path || '.'}`;
export const fileUid = (path: string): string => `code:file:${path}`;
export const docFileUid = (path: string): string => `doc:file:${path}`;
export const headingUid = (path: string, slug: string): string => `doc:heading:${path}#${slug}`;
export const symbolUid = (kind: NodeKind, path: string, qname: string): string =>
  `code:${kind}:${path}::${qname}`;
export const dependencyUid = (name: string): string => `code:dependency:${name}`;
export const externalUid = (module: string, name?: string): string =>
  name ? `code:external:${module}::${name}` : `code:external:${module}`;
/** The module of an unresolved call whose receiver could not be typed. */
export const UNRESOLVED_MODULE = '(unresolved)';

/** GitHub-style heading slug: lower case, punctuation dropped, spaces to dashes. */
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Words of an identifier for full-text search: `getHTTPServer_v2` → `get HTTP Server v 2`. */
export function splitWords(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
