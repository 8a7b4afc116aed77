// ForceAtlas2 in a Web Worker, fed to the renderer at a pace the main thread can afford.
//
// The worker answers one iteration at a time, and graphology-layout-forceatlas2's supervisor writes every
// answer into the graph it was given. If that is the graph sigma draws, each iteration (tens per second)
// makes sigma re-process every node and edge and draw a frame, which on a software renderer leaves no
// main-thread time for the user. So the worker lays out a copy of the graph, and its positions are
// copied into the drawn graph at most every `everyMs`, and once more when it stops.
//
// While the user drags the stage (`pause()` … `resume()`), the layout stands still: nothing but the camera
// moves on screen, and the worker, which would otherwise take a whole core for itself, leaves it to the
// frames. The time it stood still does not count against `durationMs`. While the camera moves otherwise
// (the glide after a release, a zoom), the worker runs but its positions wait (`holdWhile`).
import type Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import FA2Layout from 'graphology-layout-forceatlas2/worker';

export interface LayoutOptions {
  /** How long ForceAtlas2 runs (ms), not counting the time it is paused. */
  durationMs: number;
  /** The shortest time between two position updates of the drawn graph (ms). */
  everyMs: number;
  /** Positions are held back while this is true (the camera moves: its frames stay cheap). */
  holdWhile?: () => boolean;
  /** Called once the final positions are applied. */
  onDone?: () => void;
}

export interface RunningLayout {
  pause(): void;
  resume(): void;
  kill(): void;
}

export function startLayout(
  graph: Graph,
  { durationMs, everyMs, holdWhile, onDone }: LayoutOptions,
): RunningLayout {
  if (graph.order < 2) {
    onDone?.();
    return { pause() {}, resume() {}, kill() {} };
  }
  const shadow = graph.copy();
  const settings = { ...forceAtlas2.inferSettings(shadow), barnesHutOptimize: shadow.order > 400 };
  let supervisor: FA2Layout | undefined;
  let remaining = durationMs;
  let runningSince = 0;
  let paused = false;
  let finished = false;
  let lastApplied = Number.NEGATIVE_INFINITY;
  let stopTimer: ReturnType<typeof setTimeout> | undefined;

  const apply = () => {
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
  };
  const tick = setInterval(() => {
    if (paused || holdWhile?.() || performance.now() - lastApplied < everyMs) return;
    apply();
  }, everyMs / 2);
  // A stopped supervisor still has an iteration in flight, which a restart would pick up as a second
  // loop; so a pause ends the worker, and a resume starts a new one from the positions reached.
  const halt = () => {
    clearTimeout(stopTimer);
    supervisor?.kill();
    supervisor = undefined;
  };
  const finish = () => {
    halt();
    finished = true;
    clearInterval(tick);
    apply();
    onDone?.();
  };
  const run = () => {
    runningSince = performance.now();
    supervisor = new FA2Layout(shadow, { settings });
    supervisor.start();
    stopTimer = setTimeout(finish, remaining);
  };
  run();

  return {
    pause() {
      if (paused || finished) return;
      paused = true;
      halt();
      remaining -= performance.now() - runningSince;
    },
    resume() {
      if (!paused) return;
      paused = false;
      // The positions reached reach the screen with the next tick, not in the release's own task.
      if (remaining > 0) run();
      else finish();
    },
    kill() {
      halt();
      clearInterval(tick);
    },
  };
}
