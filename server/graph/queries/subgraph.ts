// Subgraph selection for export: which nodes (by containment from a root, by dependencies around it, or
// the most connected ones), then every edge of the chosen types between them.
import type { GraphReader, NodeRow } from './store.ts';

export interface Subgraph {
  nodes: NodeRow[];
  edges: { source: number; target: number; type: string; confidence: number }[];
  /** max_nodes stopped the selection before the walk ran out. */
  capped: boolean;
}

export interface SubgraphRequest {
  root?: NodeRow;
  mode: 'containment' | 'dependencies';
  types: ReadonlySet<string>;
  maxNodes: number;
  maxHops: number;
}

export function selectSubgraph(r: GraphReader, req: SubgraphRequest): Subgraph {
  const chosen = new Map<number, NodeRow>();
  let capped = false;
  if (req.root) {
    chosen.set(req.root.id, req.root);
    const follow = req.mode === 'containment' ? new Set(['contains']) : req.types;
    let frontier = [req.root.id];
    for (let d = 0; d < req.maxHops && frontier.length > 0 && !capped; d++) {
      const next: number[] = [];
      for (const id of frontier) {
        const edges =
          req.mode === 'containment' ? r.out(id, follow) : [...r.out(id, follow), ...r.in(id, follow)];
        for (const e of edges) {
          if (chosen.has(e.other)) continue;
          if (chosen.size >= req.maxNodes) {
            capped = true;
            break;
          }
          const n = r.nodeById(e.other);
          if (!n) continue;
          chosen.set(n.id, n);
          next.push(n.id);
        }
        if (capped) break;
      }
      frontier = next;
    }
  } else {
    // No root: the most connected nodes over the chosen edge types.
    const degree = new Map<number, number>();
    for (const type of req.types) {
      for (const [s, t] of r.s.edgesOfType.all(type) as [number, number][]) {
        if (s === t) continue;
        degree.set(s, (degree.get(s) ?? 0) + 1);
        degree.set(t, (degree.get(t) ?? 0) + 1);
      }
    }
    const ranked = [...degree].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    capped = ranked.length > req.maxNodes;
    for (const [id] of ranked.slice(0, req.maxNodes)) {
      const n = r.nodeById(id);
      if (n) chosen.set(id, n);
    }
  }
  const edgeTypes = req.mode === 'containment' ? new Set([...req.types, 'contains']) : req.types;
  const edges: Subgraph['edges'] = [];
  for (const id of chosen.keys()) {
    for (const e of r.out(id, edgeTypes)) {
      if (chosen.has(e.other))
        edges.push({ source: id, target: e.other, type: e.edge_type, confidence: e.confidence });
    }
  }
  return { nodes: [...chosen.values()], edges, capped };
}

const mermaidText = (s: string) =>
  s.replace(/"/g, '#quot;').replace(/[<>]/g, (c) => (c === '<' ? '#lt;' : '#gt;'));
const dotText = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function toMermaid(g: Subgraph): string {
  const id = new Map<number, string>();
  const lines = ['flowchart LR'];
  g.nodes.forEach((n, i) => {
    id.set(n.id, `n${i}`);
    lines.push(`  n${i}["${mermaidText(n.label)}<br/><small>${mermaidText(n.kind)}</small>"]`);
  });
  for (const e of g.edges) lines.push(`  ${id.get(e.source)} -->|${e.type}| ${id.get(e.target)}`);
  return lines.join('\n');
}

const DOT_SHAPES: Record<string, string> = {
  folder: 'folder',
  file: 'note',
  doc_file: 'note',
  class: 'box',
  interface: 'box',
  external: 'ellipse',
};

export function toDot(g: Subgraph): string {
  const lines = ['digraph cos {', '  rankdir=LR;', '  node [fontname="Helvetica", fontsize=10];'];
  for (const n of g.nodes)
    lines.push(
      `  "${dotText(n.uid)}" [label="${dotText(n.label)}\\n(${n.kind})", shape=${DOT_SHAPES[n.kind] ?? 'box'}];`,
    );
  const uid = new Map(g.nodes.map((n) => [n.id, n.uid]));
  for (const e of g.edges)
    lines.push(`  "${dotText(uid.get(e.source)!)}" -> "${dotText(uid.get(e.target)!)}" [label="${e.type}"];`);
  lines.push('}');
  return lines.join('\n');
}
