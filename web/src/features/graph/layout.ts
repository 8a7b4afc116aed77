// ForceAtlas2 in a Web Worker, fed to the renderer at a pace the main thread can afford.
//
// The worker answers one iteration at a time, and graphology-layout-forceatlas2's supervisor writes every
// answer into the graph it was given. If that is the graph sigma draws, each iteration (tens per second)
// makes sigma re-process every node and edge and draw a frame with all the edges, which on a software
// renderer leaves no main-thread time for the user. So the worker lays out a copy of the graph, and its
// positions are copied into the drawn graph at most every `everyMs`, never while `paused()` (the user is
// dragging the stage: the camera alone moves, nothing is re-processed), and once more when it stops.
import type Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import FA2Layout from 'graphology-layout-forceatlas2/worker';

export interface LayoutOptions {
  /** How long ForceAtlas2 runs (ms). */
  durationMs: number;
  /** The shortest time between two position updates of the drawn graph (ms). */
  everyMs: number;
  /** While true, positions are held back (and applied as soon as it turns false). */
  paused: () => boolean;
  /** Called once the final positions are applied. */
  onDone?: () => void;
}

export interface RunningLayout {
  /** Applies the held-back positions now if they are waiting and the layout is not paused. */
  resume(): void;
  kill(): void;
}

export function startLayout(
  graph: Graph,
  { durationMs, everyMs, paused, onDone }: LayoutOptions,
): RunningLayout {
  if (graph.order < 2) {
    onDone?.();
    return { resume() {}, kill() {} };
  }
  const shadow = graph.copy();
  const supervisor = new FA2Layout(shadow, {
    settings: { ...forceAtlas2.inferSettings(shadow), barnesHutOptimize: shadow.order > 400 },
  });
  let running = true;
  let pending = false;
  let lastApplied = 0;

  const apply = () => {
    if (paused()) {
      pending = true;
      return;
    }
    pending = false;
    lastApplied = performance.now();
    // One event for the whole graph, hinted as positions only, so sigma re-indexes once.
    graph.updateEachNodeAttributes(
      (node, attr) => {
        attr.x = shadow.getNodeAttribute(node, 'x');
        attr.y = shadow.getNodeAttribute(node, 'y');
        return attr;
      },
      { attributes: ['x', 'y'] },
    );
    if (!running) {
      clearInterval(tick);
      onDone?.();
    }
  };
  const tick = setInterval(() => {
    if (performance.now() - lastApplied >= everyMs) apply();
  }, everyMs / 2);
  const stop = setTimeout(() => {
    supervisor.stop();
    running = false;
    apply();
  }, durationMs);
  supervisor.start();

  return {
    resume() {
      if (pending) apply();
    },
    kill() {
      clearTimeout(stop);
      clearInterval(tick);
      supervisor.kill();
    },
  };
}
