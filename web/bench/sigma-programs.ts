// Harness for test/e2e/graph-canvas.test.ts: one made-up graph drawn twice, on the left with sigma's own
// instanced programs and on the right with web/src/components/graph-canvas/webgl-programs.ts, without a layout, so
// that the two can be compared pixel for pixel. The page says where node n5 is on the right and which
// node the pointer entered there (found by NodeDiscProgram's picking pass). Not in the product build.
import Graph from 'graphology';
import Sigma from 'sigma';
import { EdgeArrowProgram, NodeCircleProgram } from 'sigma/rendering';
import { EdgeArrowFlatProgram, NodeDiscProgram } from '../src/components/graph-canvas/webgl-programs.ts';

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
const N = 40;
const graph = new Graph({ multi: true, type: 'directed' });
for (let i = 0; i < N; i++) {
  const angle = (2 * Math.PI * i) / N;
  const radius = i % 2 ? 1 : 0.6;
  graph.addNode(`n${i}`, {
    x: Math.cos(angle) * radius,
    y: Math.sin(angle) * radius,
    size: 4 + (i % 5) * 2,
    color: COLOURS[i % COLOURS.length],
  });
}
// 7i + 3 is never i (mod 40), so no self-loop; edges of three thicknesses.
for (let i = 0; i < N; i++)
  graph.addEdge(`n${i}`, `n${(i * 7 + 3) % N}`, { size: 1 + (i % 3), color: '#9aa3b5' });

const settings = { renderLabels: false, defaultEdgeType: 'arrow', zIndex: true };
const stage = (id: string): HTMLElement => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el;
};
const sigma = new Sigma(graph, stage('sigma'), {
  ...settings,
  nodeProgramClasses: { circle: NodeCircleProgram },
  edgeProgramClasses: { arrow: EdgeArrowProgram },
});
const flat = new Sigma(graph, stage('flat'), {
  ...settings,
  nodeProgramClasses: { circle: NodeDiscProgram },
  edgeProgramClasses: { arrow: EdgeArrowFlatProgram },
});
flat.on('enterNode', ({ node }) => {
  document.body.dataset.entered = node;
});
requestAnimationFrame(() =>
  requestAnimationFrame(() => {
    const box = stage('flat').getBoundingClientRect();
    const at = flat.graphToViewport({
      x: graph.getNodeAttribute('n5', 'x'),
      y: graph.getNodeAttribute('n5', 'y'),
    });
    document.body.dataset.probe = JSON.stringify({ x: box.left + at.x, y: box.top + at.y });
    document.body.dataset.drawn = String(sigma.getGraph().order);
  }),
);
