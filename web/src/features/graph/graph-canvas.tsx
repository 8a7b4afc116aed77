// The interactive graph: graphology holds it, sigma draws it with WebGL, and ForceAtlas2 lays it out in
// a Web Worker (layout.ts), so the page stays responsive while nodes settle. Nodes start on a circle so
// the first frame is drawn at once; the layout then refines it for a while.
import Graph from 'graphology';
import { useEffect, useRef } from 'react';
import Sigma from 'sigma';
import { drawDiscNodeLabel, type NodeHoverDrawingFunction } from 'sigma/rendering';
import { useThemeProperties } from '../../lib/theme.ts';
import { kindColour } from './kinds.tsx';
import { startLayout } from './layout.ts';
import { cameraMoving, EdgeArrowFlatProgram, EdgeNoneProgram, NodeDiscProgram } from './webgl-programs.ts';

export interface CanvasNode {
  id: string;
  label: string;
  kind: string;
}

export interface CanvasEdge {
  source: string;
  target: string;
  type: string;
}

/** The theme's colours the canvas paints with (labels, the hovered or selected node's label box). */
const THEME_PROPERTIES = ['--text', '--surface'] as const;
type ThemeColours = Record<(typeof THEME_PROPERTIES)[number], string>;

/**
 * sigma's hover drawing with the theme's colours: its own paints a white box, on which the dark theme's
 * light label would vanish. Same geometry: a box joined to the node's disc, with a soft shadow.
 */
function drawThemedHover(
  context: CanvasRenderingContext2D,
  data: Parameters<NodeHoverDrawingFunction>[1],
  settings: Parameters<NodeHoverDrawingFunction>[2],
  theme: ThemeColours,
): void {
  const size = settings.labelSize;
  context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
  context.fillStyle = theme['--surface'] || '#fff';
  context.shadowOffsetX = 0;
  context.shadowOffsetY = 0;
  context.shadowBlur = 8;
  context.shadowColor = '#000';
  const padding = 2;
  context.beginPath();
  if (typeof data.label === 'string') {
    const boxWidth = Math.round(context.measureText(data.label).width + 5);
    const boxHeight = Math.round(size + 2 * padding);
    const radius = Math.max(data.size, size / 2) + padding;
    const angle = Math.asin(boxHeight / 2 / radius);
    const dx = Math.sqrt(Math.abs(radius ** 2 - (boxHeight / 2) ** 2));
    context.moveTo(data.x + dx, data.y + boxHeight / 2);
    context.lineTo(data.x + radius + boxWidth, data.y + boxHeight / 2);
    context.lineTo(data.x + radius + boxWidth, data.y - boxHeight / 2);
    context.lineTo(data.x + dx, data.y - boxHeight / 2);
    context.arc(data.x, data.y, radius, angle, -angle);
  } else {
    context.arc(data.x, data.y, data.size + padding, 0, Math.PI * 2);
  }
  context.closePath();
  context.fill();
  context.shadowBlur = 0;
  drawDiscNodeLabel(context, data, settings);
}

/**
 * The layout's positions reach the screen at most this often: each update makes sigma re-process every
 * node and edge before it draws a frame, about 20 ms of JavaScript for 2,000 nodes on a loaded machine.
 */
const LAYOUT_FRAME_MS = 150;
/** Above this many edges, the edges are not drawn while the layout runs. */
const LAYOUT_HIDES_EDGES_ABOVE = 1000;
/** Sigma's layers that stay empty while the camera moves (see the beforeRender listener). */
const LAYERS_EMPTY_WHILE_MOVING = ['edges', 'edgeLabels', 'labels', 'hovers', 'hoverNodes'];

interface Props {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  selected?: string | undefined;
  onSelect?: (id: string) => void;
  /** How long ForceAtlas2 runs (ms). */
  layoutMs?: number;
  /** Called once, when the first frame with every node is on screen. */
  onDrawn?: (ms: number) => void;
}

export function GraphCanvas({ nodes, edges, selected, onSelect, layoutMs = 3000, onDrawn }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const renderer = useRef<Sigma | undefined>(undefined);
  const callbacks = useRef({ onSelect, onDrawn });
  callbacks.current = { onSelect, onDrawn };
  const theme = useThemeProperties(THEME_PROPERTIES);
  const themeRef = useRef(theme);
  themeRef.current = theme;

  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const started = performance.now();
    const graph = new Graph({ multi: true, type: 'directed', allowSelfLoops: false });
    const degree = new Map<string, number>();
    for (const e of edges) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
      degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
    }
    const r = Math.max(10, Math.sqrt(nodes.length) * 10);
    nodes.forEach((n, i) => {
      if (graph.hasNode(n.id)) return;
      const a = (2 * Math.PI * i) / Math.max(1, nodes.length);
      graph.addNode(n.id, {
        label: n.label,
        x: Math.cos(a) * r,
        y: Math.sin(a) * r,
        size: 3 + Math.min(12, Math.sqrt(degree.get(n.id) ?? 0) * 2),
        color: kindColour(n.kind),
      });
    });
    for (const e of edges) {
      if (e.source === e.target || !graph.hasNode(e.source) || !graph.hasNode(e.target)) continue;
      graph.addEdge(e.source, e.target, { size: 1, color: '#9aa3b5', label: e.type });
    }
    let edgesWaitForLayout = graph.size > LAYOUT_HIDES_EDGES_ABOVE;
    const sigma = new Sigma(graph, el, {
      renderEdgeLabels: false,
      labelColor: { color: themeRef.current['--text'] || '#000' },
      defaultDrawNodeHover: (context, data, settings) =>
        drawThemedHover(context, data, settings, themeRef.current),
      // Small graphs can afford every label; big ones show labels as the camera zooms in.
      labelRenderedSizeThreshold: nodes.length <= 150 ? 0 : 7,
      // Sigma also keeps one label per 100 px cell; a picture of a few dozen nodes (the Review page's)
      // names every node, even two drawn side by side.
      labelDensity: nodes.length <= 40 ? 100 : 1,
      defaultEdgeType: 'arrow',
      zIndex: true,
      // Panning redraws every frame; edges and labels are most of that work, so they wait for the stop.
      // (The edge program itself skips them while moving: sigma's hideEdgesOnMove would re-index the
      // whole graph after every drag.)
      hideLabelsOnMove: true,
      // One draw call per layer instead of one per node or edge (see webgl-programs.ts).
      nodeProgramClasses: { circle: NodeDiscProgram },
      // A frame with every edge of a big graph is the costly one (100 ms for 6,000 edges on a software
      // renderer), so while the layout moves the nodes they are drawn alone; the edges join once it stops.
      edgeProgramClasses: { arrow: edgesWaitForLayout ? EdgeNoneProgram : EdgeArrowFlatProgram },
    });
    renderer.current = sigma;
    sigma.once('afterRender', () => callbacks.current.onDrawn?.(performance.now() - started));
    sigma.on('clickNode', ({ node }) => callbacks.current.onSelect?.(node));
    const layout = startLayout(graph, {
      durationMs: layoutMs,
      everyMs: LAYOUT_FRAME_MS,
      holdWhile: () => cameraMoving(sigma),
      onDone: () => {
        if (!edgesWaitForLayout) return;
        edgesWaitForLayout = false;
        sigma.setSetting('edgeProgramClasses', { arrow: EdgeArrowFlatProgram });
      },
    });
    // A layer with nothing drawn on it this frame is hidden: the browser would otherwise still read it
    // back from the GPU and composite it on every frame (a third of a pan frame's cost on a software
    // renderer). While the camera moves, the nodes are drawn alone (the edge program skips its draw,
    // hideLabelsOnMove, hover parked or not drawn); while edges wait for the layout, their layer is empty.
    const canvases = sigma.getCanvases();
    sigma.on('beforeRender', () => {
      const moving = cameraMoving(sigma);
      for (const id of LAYERS_EMPTY_WHILE_MOVING) {
        const canvas = canvases[id];
        const empty = moving || (id === 'edges' && edgesWaitForLayout);
        if (canvas) canvas.style.visibility = empty ? 'hidden' : '';
      }
    });
    // While the stage is dragged, the layout pauses until the release, and hover detection, which reads a
    // pixel back from the GPU on every mouse move and so waits for the frame to be drawn, is parked
    // (nothing can be hovered while dragging).
    const captor = sigma.getMouseCaptor();
    let parked: ReturnType<typeof captor.listeners<'mousemove'>> = [];
    captor.on('mousedown', () => {
      layout.pause();
      parked = captor.listeners('mousemove');
      captor.removeAllListeners('mousemove');
    });
    // The frame after a drag draws what moving frames leave out. A drag that stopped before the release
    // moves the camera no more, so that frame is asked for once the captor has closed the drag (its own
    // timeout, queued before this one).
    const dragEnds = () => {
      layout.resume();
      setTimeout(() => sigma.scheduleRender(), 0);
    };
    captor.on('mouseup', () => {
      for (const listener of parked) captor.on('mousemove', listener);
      parked = [];
      dragEnds();
    });
    const touch = sigma.getTouchCaptor();
    touch.on('touchdown', () => layout.pause());
    touch.on('touchup', dragEnds);
    sigma.on('enterNode', () => {
      el.style.cursor = 'pointer';
    });
    sigma.on('leaveNode', () => {
      el.style.cursor = '';
    });
    return () => {
      layout.kill();
      sigma.kill();
      renderer.current = undefined;
    };
  }, [nodes, edges, layoutMs]);

  // A theme change repaints the labels in the theme's text colour (the hover box reads themeRef).
  useEffect(() => {
    renderer.current?.setSetting('labelColor', { color: theme['--text'] || '#000' });
  }, [theme]);

  // Highlight the selected node without rebuilding the graph.
  useEffect(() => {
    const sigma = renderer.current;
    if (!sigma) return;
    sigma.setSetting('nodeReducer', (node, data) =>
      selected && node === selected
        ? { ...data, highlighted: true, zIndex: 1, size: (data.size ?? 4) * 1.6 }
        : data,
    );
  }, [selected]);

  return <div ref={container} className="graph-canvas" data-testid="graph-canvas" />;
}
