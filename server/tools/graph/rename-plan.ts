import { type Static, Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { RepoLines } from '../../graph/queries/source.ts';
import type { GraphReader, NodeRow } from '../../graph/queries/store.ts';
import {
  isTestPath,
  wordColumnNear,
  wordColumns,
  wordInCodeSpans,
  wordInStrings,
} from '../../graph/queries/text.ts';
import { defineTool } from '../define.ts';
import {
  completenessOf,
  graphCall,
  NodeRefInput,
  NodeSchema,
  nodeOut,
  orAmbiguous,
  quoteInput,
  resolveArg,
  TOOL_READ_ONLY,
} from './common.ts';

const RENAMEABLE = new Set([
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'variable',
  'constant',
]);
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
/** Markdown files scanned for `name` in code spans; beyond this the doc list is a lower bound. */
const DOC_SCAN_CAP = 2000;

const SiteSchema = Type.Object({
  file_path: Type.String(),
  line: Type.Integer(),
  column: Type.Integer({ description: '1-based column of the name itself' }),
  text: Type.String({ description: 'the line, trimmed' }),
  via: Type.String({ description: 'how it was found: an edge type, import, definition, override, text' }),
  uid: Type.Optional(Type.String({ description: 'the referring or defining node' })),
});
type Site = Static<typeof SiteSchema>;

/** Methods with the same name up and down the class hierarchy: renaming one breaks the override. */
function overrides(r: GraphReader, method: NodeRow): NodeRow[] {
  const cls = r.in(method.id, new Set(['contains']))[0];
  if (!cls) return [];
  const related = new Set<number>([cls.other]);
  let frontier = [cls.other];
  const hier = new Set(['inherits_from', 'implements']);
  for (let d = 0; d < 4 && frontier.length; d++) {
    const next: number[] = [];
    for (const id of frontier)
      for (const e of [...r.out(id, hier), ...r.in(id, hier)])
        if (!related.has(e.other)) {
          related.add(e.other);
          next.push(e.other);
        }
    frontier = next;
  }
  related.delete(cls.other);
  const out: NodeRow[] = [];
  for (const id of related)
    for (const e of r.out(id, new Set(['contains']))) {
      const m = r.nodeById(e.other);
      if (m && m.label === method.label && m.kind === 'method') out.push(m);
    }
  return out;
}

export const graphRenamePlanTool = defineTool({
  name: 'cos_graph_rename_plan',
  title: 'Plan a rename',
  description:
    'Everything to edit to rename a symbol (definitions, calls, imports, tests, docs, strings), with a risk level. Edits nothing.',
  module: 'graph',
  layer: 'graph',
  input: Type.Object(
    {
      node: NodeRefInput(),
      new_name: Type.String({ minLength: 1, maxLength: 200 }),
      include_strings: Type.Optional(
        Type.Boolean({
          default: true,
          description: 'also search string literals',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: orAmbiguous(
    Type.Object({
      node: NodeSchema,
      old_name: Type.String(),
      new_name: Type.String(),
      definitions: Type.Array(SiteSchema),
      call_sites: Type.Array(SiteSchema),
      import_sites: Type.Array(SiteSchema),
      test_references: Type.Array(SiteSchema),
      doc_references: Type.Array(SiteSchema),
      string_literals: Type.Array(SiteSchema),
      total_edits: Type.Integer({
        description: 'sites to edit, string literals aside (they need a look first)',
      }),
      files: Type.Integer(),
      risk: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
      risk_reasons: Type.Array(Type.String()),
      suggested_order: Type.Array(
        Type.Object({ step: Type.Integer(), action: Type.String(), files: Type.Array(Type.String()) }),
      ),
    }),
  ),
  annotations: TOOL_READ_ONLY,
  http: { method: 'GET', path: '/api/graph/rename-plan' },
  handler: (ctx, input) => {
    if (!IDENTIFIER.test(input.new_name))
      throw new ToolError(
        'validation',
        `new_name must be an identifier (letters, digits, _ or $, not starting with a digit); got ${quoteInput(input.new_name)}`,
      );
    const call = graphCall(ctx);
    const res = resolveArg(ctx, call, input.node, 'symbol');
    if ('ambiguous' in res) return { ...res.ambiguous, meta: call.meta };
    const { r } = call;
    const node = res.node;
    if (!RENAMEABLE.has(node.kind) || !node.file_path)
      throw new ToolError(
        'validation',
        `${node.uid} is a ${node.kind}; rename_plan plans renames of symbols defined in the repository (function, method, class, interface, type, enum, variable, constant)`,
      );
    const old = node.label;
    if (old === input.new_name) throw new ToolError('validation', `the symbol is already called ${old}`);
    const files = new RepoLines(ctx.config.repo);
    const seen = new Set<string>();
    const site = (path: string, line: number, col: number, via: string, uid?: string): Site | undefined => {
      const key = `${path}:${line}:${col}`;
      if (seen.has(key)) return undefined;
      seen.add(key);
      const text = files.get(path)?.[line - 1]?.trim() ?? '';
      return { file_path: path, line, column: col, text: text.slice(0, 200), via, ...(uid ? { uid } : {}) };
    };
    const push = (list: Site[], s: Site | undefined) => {
      if (s) list.push(s);
    };
    const locate = (path: string, line: number | null, col: number | null): number | undefined => {
      if (line === null) return undefined;
      const l = files.get(path)?.[line - 1];
      return l === undefined ? undefined : wordColumnNear(l, old, col);
    };

    const definitions: Site[] = [];
    const defNodes = [node, ...(node.kind === 'method' ? overrides(r, node) : [])];
    for (const d of defNodes) {
      if (!d.file_path || d.start_line === null) continue;
      // A decorator or doc comment can start the span: look a few lines down for the name.
      for (let l = d.start_line; l <= Math.min(d.end_line ?? d.start_line, d.start_line + 5); l++) {
        const c = locate(d.file_path, l, null);
        if (c !== undefined) {
          push(definitions, site(d.file_path, l, c, d.id === node.id ? 'definition' : 'override', d.uid));
          break;
        }
      }
    }

    const callSites: Site[] = [];
    const testRefs: Site[] = [];
    const docRefs: Site[] = [];
    const importSites: Site[] = [];
    const involved = new Set<string>([node.file_path]);
    for (const d of defNodes) {
      for (const e of r.in(d.id)) {
        if (e.edge_type === 'contains') continue;
        const src = r.nodeById(e.other);
        if (!src?.file_path || e.line === null) continue;
        involved.add(src.file_path);
        const col = locate(src.file_path, e.line, e.col);
        if (col === undefined) continue;
        const s = site(src.file_path, e.line, col, e.edge_type, src.uid);
        if (src.kind === 'doc_file' || src.kind === 'heading') push(docRefs, s);
        else if (isTestPath(src.file_path)) push(testRefs, s);
        else push(callSites, s);
      }
    }

    // Import sites: the import statements of files that import the defining file and name the symbol.
    const defFile = r.node(`code:file:${node.file_path}`);
    const importers = new Set<string>();
    if (defFile) {
      for (const e of r.in(defFile.id, new Set(['imports']))) {
        const src = r.nodeById(e.other);
        if (!src?.file_path || e.line === null) continue;
        const lines = files.get(src.file_path);
        if (!lines) continue;
        let open = 0;
        for (let l = e.line; l <= Math.min(lines.length, e.line + 30); l++) {
          const text = lines[l - 1] ?? '';
          for (const c of wordColumns(text, old))
            push(importSites, site(src.file_path, l, c, 'import', src.uid));
          open += (text.match(/[{(]/g)?.length ?? 0) - (text.match(/[})]/g)?.length ?? 0);
          if (open <= 0) break;
        }
        if (importSites.some((s) => s.file_path === src.file_path)) importers.add(src.file_path);
      }
    }
    // Other uses in importing files the graph has no edge for (the symbol passed as a value, say).
    // Methods are reached through receivers the text cannot type, so only the graph's edges count for
    // them; for the rest, member accesses (`x.name`) and other symbols' definitions are not this name.
    if (node.kind !== 'method') {
      for (const path of [...importers, node.file_path]) {
        involved.add(path);
        const otherDefs = new Set(
          (r.s.inFile.all(path) as NodeRow[])
            .filter((n) => n.label === old && n.id !== node.id)
            .map((n) => n.start_line),
        );
        const target = isTestPath(path) ? testRefs : callSites;
        (files.get(path) ?? []).forEach((text, i) => {
          if (otherDefs.has(i + 1) || /^\s*(\/\/|#|\*)/.test(text)) return;
          const inStrings = wordInStrings(text, old);
          for (const c of wordColumns(text, old)) {
            if (inStrings.includes(c) || /\.\s*$/.test(text.slice(0, c - 1))) continue;
            push(target, site(path, i + 1, c, 'text'));
          }
        });
      }
    }

    let docsScanned = 0;
    let docsCapped = false;
    for (const path of r.s.markdownFiles.all() as string[]) {
      if (++docsScanned > DOC_SCAN_CAP) {
        docsCapped = true;
        break;
      }
      (files.get(path) ?? []).forEach((text, i) => {
        for (const c of wordInCodeSpans(text, old)) push(docRefs, site(path, i + 1, c, 'text'));
      });
    }

    const strings: Site[] = [];
    if (input.include_strings ?? true) {
      for (const path of involved) {
        (files.get(path) ?? []).forEach((text, i) => {
          for (const c of wordInStrings(text, old)) push(strings, site(path, i + 1, c, 'string'));
        });
      }
    }

    const byFile = (list: Site[]) => [...new Set(list.map((s) => s.file_path))].sort();
    const sortSites = (list: Site[]) =>
      list.sort((a, b) => a.file_path.localeCompare(b.file_path) || a.line - b.line || a.column - b.column);
    for (const l of [definitions, callSites, importSites, testRefs, docRefs, strings]) sortSites(l);
    const edits = [definitions, callSites, importSites, testRefs, docRefs];
    const allFiles = new Set(edits.flat().map((s) => s.file_path));

    const reasons: string[] = [];
    let risk: 'low' | 'medium' | 'high' = 'low';
    const raise = (to: 'medium' | 'high', why: string) => {
      reasons.push(why);
      if (to === 'high' || risk === 'low') risk = to;
    };
    const collisions = (
      r.s.byPathAndName.all(node.file_path, input.new_name, input.new_name) as NodeRow[]
    ).filter((n) => n.id !== node.id);
    if (collisions.length > 0)
      raise('high', `${input.new_name} is already defined in ${node.file_path} (${collisions[0]!.uid})`);
    const completeness = completenessOf(r, node);
    if (completeness.completeness === 'lower_bound')
      raise(
        'high',
        `${completeness.unresolved_calls_same_name} call(s) named ${old} could not be resolved to a definition and may be this symbol`,
      );
    if (strings.length > 0)
      raise(
        'high',
        `${strings.length} string literal(s) contain ${old}: dynamic uses (reflection, routes, config) break silently`,
      );
    if (defNodes.length > 1) raise('medium', `${defNodes.length - 1} override(s) must be renamed together`);
    if (allFiles.size > 3) raise('medium', `${allFiles.size} files change`);
    if (docsCapped) reasons.push(`only the first ${DOC_SCAN_CAP} Markdown files were scanned`);

    const order = [
      { action: 'rename the definitions', files: byFile(definitions) },
      { action: 'update the import statements', files: byFile(importSites) },
      { action: 'update the call sites', files: byFile(callSites) },
      { action: 'update the tests, then run them', files: byFile(testRefs) },
      { action: 'update the documentation', files: byFile(docRefs) },
      {
        action: 'review the string literals (rename only those that name the symbol)',
        files: byFile(strings),
      },
    ]
      .filter((s) => s.files.length > 0)
      .map((s, i) => ({ step: i + 1, ...s }));
    return {
      node: nodeOut(node),
      old_name: old,
      new_name: input.new_name,
      definitions,
      call_sites: callSites,
      import_sites: importSites,
      test_references: testRefs,
      doc_references: docRefs,
      string_literals: strings,
      total_edits: edits.reduce((n, l) => n + l.length, 0),
      files: allFiles.size,
      risk,
      risk_reasons: reasons,
      suggested_order: order,
      meta: {
        ...call.meta,
        resolved_from: res.from,
        ...completeness,
        ...(docsCapped ? { completeness: 'lower_bound' } : {}),
        string_literal_scope: 'files that define, reference or import the symbol',
      },
    };
  },
});
