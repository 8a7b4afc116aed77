// One colour per node kind, the same in every view, every theme and every list that names a kind: a
// colour means one kind wherever it appears. Colour is never alone (the legend, labels and lists name
// the kind). Chosen to stay apart from each other and readable on the light and the dark surface.
// Kept apart from graph-canvas.tsx so the page can colour its legend without loading sigma.
import { useMemo } from 'react';
import type { operations } from '../../lib/api-types.ts';

export type NodeKind = NonNullable<operations['graphSearch']['parameters']['query']['kinds']>[number];

/**
 * In the legend's order: the tree, docs, types, callables, values, what the repository exposes (routes,
 * tools, commands, events), then what lives outside the repo.
 */
export const KIND_COLOURS: Readonly<Record<NodeKind, string>> = {
  folder: '#8c6d46',
  file: '#c99a2e',
  module: '#7d8f2a',
  doc_file: '#2f9a5a',
  heading: '#58c08a',
  class: '#2f7fd0',
  interface: '#1fb0c0',
  type: '#8a5cd0',
  enum: '#d05cb4',
  function: '#e0602a',
  method: '#f08a8a',
  variable: '#70b8f8',
  constant: '#d0303f',
  route: '#6ccf2f',
  mcp_tool: '#0f8f7a',
  cli_command: '#6b4aa8',
  event_handler: '#c06a9a',
  dependency: '#5a5fc8',
  external: '#9a9a9a',
};

/** A kind this build does not know yet (a newer hub): drawn, and listed in the legend, in this colour. */
const UNKNOWN_KIND = '#c4b8a8';

const ORDER = Object.keys(KIND_COLOURS);

export function kindColour(kind: string): string {
  return (KIND_COLOURS as Record<string, string>)[kind] ?? UNKNOWN_KIND;
}

/** The kinds among `kinds`, each once, in the legend's fixed order (unknown kinds last, by name). */
export function legendKinds(kinds: Iterable<string>): string[] {
  const rank = (k: string) => {
    const i = ORDER.indexOf(k);
    return i < 0 ? ORDER.length : i;
  };
  return [...new Set(kinds)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export function KindSwatch({ kind }: { kind: string }) {
  return <span className="swatch" style={{ background: kindColour(kind) }} aria-hidden="true" />;
}

/** The legend of a canvas: every kind among `nodes`, once, in the fixed order, each with its colour. */
export function KindLegend({ nodes }: { nodes: readonly { kind: string }[] }) {
  const kinds = useMemo(() => legendKinds(nodes.map((n) => n.kind)), [nodes]);
  return (
    <ul className="legend" aria-label="Node kinds">
      {kinds.map((kind) => (
        <li key={kind} data-kind={kind}>
          <KindSwatch kind={kind} /> {kind}
        </li>
      ))}
    </ul>
  );
}
