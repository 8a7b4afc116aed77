// package.json: the files a package starts from (`bin` commands, `main`, `module`), kept on the
// manifest's file node as `metadata.entry_files` ({path, reason}) for cos_graph_entrypoints, which
// maps each to the file node it names (a built `dist/x.js` to its source when the graph has one).
import type { Extraction } from '../../types.ts';

export function recognisePackageJson(path: string, text: string, ex: Extraction): void {
  if (text.length > 1_000_000) return;
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    return;
  }
  if (!pkg || typeof pkg !== 'object') return;
  const p = pkg as Record<string, unknown>;
  if (typeof p.name === 'string' && path.includes('node_modules/')) return;
  const out: { path: string; reason: string }[] = [];
  const add = (file: unknown, reason: string) => {
    if (typeof file === 'string' && file.length > 0 && file.length < 500 && out.length < 100)
      out.push({ path: file, reason });
  };
  if (typeof p.bin === 'string')
    add(p.bin, `package.json bin ${typeof p.name === 'string' ? p.name : ''}`.trim());
  else if (p.bin && typeof p.bin === 'object')
    for (const [name, file] of Object.entries(p.bin as Record<string, unknown>))
      add(file, `package.json bin ${name}`);
  add(p.main, 'package.json main');
  add(p.module, 'package.json module');
  const file = ex.nodes[0];
  if (file && out.length > 0) file.metadata = { ...(file.metadata ?? {}), entry_files: out };
}
