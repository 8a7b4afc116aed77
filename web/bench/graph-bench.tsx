// Bench harness for scripts/bench/spa.ts: the Graph page's GraphCanvas drawing a synthetic code graph of
// ?n= nodes (about three edges each), so the 2,000-node figure can be measured before the graph routes
// exist. Not part of the product build (Vite builds web/index.html only).
import { createRoot } from 'react-dom/client';
import {
  type CanvasEdge,
  type CanvasNode,
  GraphCanvas,
} from '../src/components/graph-canvas/graph-canvas.tsx';

const params = new URLSearchParams(window.location.search);
const n = Number(params.get('n') ?? 2000);
const layoutMs = Number(params.get('layout') ?? 4000);
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const kinds = ['file', 'function', 'class', 'method', 'interface'];
const nodes: CanvasNode[] = [];
const edges: CanvasEdge[] = [];
for (let i = 0; i < n; i++) {
  const kind = i % 10 === 0 ? 'file' : (kinds[1 + (i % 4)] ?? 'function');
  nodes.push({ id: `code:${kind}:src/m${Math.floor(i / 10)}.ts::s${i}`, label: `s${i}`, kind });
  if (i > 0) {
    const parent = nodes[Math.floor(i / 10) * 10] ?? nodes[0];
    if (parent && parent.id !== nodes[i]?.id)
      edges.push({ source: parent.id, target: nodes[i]?.id ?? '', type: 'contains' });
    for (let k = 0; k < 2; k++) {
      const other = nodes[Math.floor(random() * i)];
      if (other) edges.push({ source: nodes[i]?.id ?? '', target: other.id, type: 'calls' });
    }
  }
}

createRoot(document.getElementById('root')!).render(
  <GraphCanvas
    nodes={nodes}
    edges={edges}
    layoutMs={layoutMs}
    onDrawn={(ms) => {
      document.body.dataset.drawn = String(ms);
      document.body.dataset.navToDrawn = String(performance.now());
    }}
  />,
);
