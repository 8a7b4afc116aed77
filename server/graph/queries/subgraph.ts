// Subgraph selection for export: which nodes (the containment tree under a root, the dependencies
// around one, or the most connected repository nodes), then every edge of the chosen types between them.
import type { GraphReader, NodeRow } from './store.ts';

/** What an export shows of a node (a 2,000-node answer reads only these columns). */
export type SubgraphNode = Pick<NodeRow, 'id' | 'uid' | 'kind' | 'label' | 'file_path' | 'start_line'>;

export interface Subgraph {
  nodes: SubgraphNode[];
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
  /** Graph generation: the degree ranking of a root-less export is kept per generation. */
  generation: number;
}

/**
 * The most connected nodes and the edges among them, per (generation, edge types): ranking scans every
 * edge of those types, so it runs once per index pass and each request takes a prefix of the pool.
 */
const rankings = new WeakMap<GraphReader, Map<string, { nodes: SubgraphNode[]; edges: Subgraph['edges'] }>>();
const RANK_POOL = 2000;

export function selectSubgraph(r: GraphReader, req: SubgraphRequest): Subgraph {
  let nodes: SubgraphNode[];
  let capped = false;
  const edges: Subgraph['edges'] = [];
  if (req.mode === 'containment' && req.root) {
    const rows = r.s.containmentTree.all({
      root: req.root.id,
      hops: req.maxHops,
      limit: req.maxNodes + 1,
    }) as (SubgraphNode & {
      parent: number | null;
    })[];
    capped = rows.length > req.maxNodes;
    const seen = new Set<number>();
    nodes = [];
    for (const row of rows.slice(0, req.maxNodes)) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      const { parent, ...node } = row;
      nodes.push(node);
      if (parent !== null) edges.push({ source: parent, target: row.id, type: 'contains', confidence: 1 });
    }
  } else if (req.root) {
    const chosen = new Map<number, NodeRow>([[req.root.id, req.root]]);
    let frontier = [req.root.id];
    for (let d = 0; d < req.maxHops && frontier.length > 0 && !capped; d++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const e of [...r.out(id, req.types), ...r.in(id, req.types)]) {
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
    nodes = [...chosen.values()];
  } else {
    let byGeneration = rankings.get(r);
    if (!byGeneration) {
      byGeneration = new Map();
      rankings.set(r, byGeneration);
    }
    const typesJson = JSON.stringify([...req.types].sort());
    const key = `${req.generation}|${typesJson}`;
    let pool = byGeneration.get(key);
    if (!pool) {
      const ids = r.s.topByDegree.all({ types: typesJson, limit: RANK_POOL + 1 }) as number[];
      pool = {
        nodes: r.nodesByIds(ids),
        edges: r.s.edgesAmong.all({ ids: JSON.stringify(ids), types: typesJson }) as Subgraph['edges'],
      };
      if (byGeneration.size >= 8) byGeneration.clear();
      byGeneration.set(key, pool);
    }
    capped = pool.nodes.length > req.maxNodes;
    nodes = pool.nodes.slice(0, req.maxNodes);
    const kept = new Set(nodes.map((n) => n.id));
    for (const e of pool.edges) if (kept.has(e.source) && kept.has(e.target)) edges.push(e);
    return { nodes, edges, capped };
  }
  // Extra edge types over the containment tree, and every dependency edge among the chosen nodes.
  const among = req.mode === 'containment' ? [...req.types].filter((t) => t !== 'contains') : [...req.types];
  if (among.length > 0 && nodes.length > 0) {
    const ids = JSON.stringify(nodes.map((n) => n.id));
    for (const e of r.s.edgesAmong.all({ ids, types: JSON.stringify(among) }) as Subgraph['edges'])
      edges.push(e);
  }
  return { nodes, edges, capped };
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
