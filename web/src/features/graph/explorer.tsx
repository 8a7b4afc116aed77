// The explorer: search a symbol, see its neighbourhood drawn (an export around it, within a node budget
// and the chosen edge types), click a node for its panels. The selection lives in the URL (?uid=).
import { type FormEvent, lazy, Suspense, useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { TruncatedNotice } from '../../components/truncated-notice.tsx';
import { count } from '../../lib/plural.ts';
import { navigate, useLocation, withParams } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { BUDGETS, EDGE_TYPES, type EdgeType, type ExportQuery, graphExport, graphSearch } from './api.ts';
import { ContainmentTree } from './containment-tree.tsx';
import { KindLegend, KindSwatch } from './kinds.tsx';
import { NodePanel } from './node-panel.tsx';

const MODES = [
  { id: 'auto', label: 'auto' },
  { id: 'containment', label: 'containment' },
  { id: 'dependencies', label: 'dependencies' },
] as const satisfies readonly { id: NonNullable<ExportQuery['mode']>; label: string }[];

// sigma and graphology are the page's heaviest code: load them with the canvas, after the controls.
const GraphCanvas = lazy(() => import('./graph-canvas.tsx').then((m) => ({ default: m.GraphCanvas })));

function Results({ query, onSelect }: { query: string; onSelect: (uid: string) => void }) {
  const q = useQuery(`gsearch:${query}`, (signal) => graphSearch(query, signal));
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Searching…</p>;
  if (v.data.results.length === 0) return <p className="muted">No symbol matches “{query}”.</p>;
  return (
    <ul className="results" data-testid="graph-results">
      {v.data.results.map((r) => (
        <li key={r.uid}>
          <button type="button" className="link" onClick={() => onSelect(r.uid)}>
            {r.label}
          </button>{' '}
          <span className="muted">
            <KindSwatch kind={r.kind} /> {r.kind}
            {r.file_path ? ` · ${r.file_path}${r.start_line ? `:${r.start_line}` : ''}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function Explorer() {
  const location = useLocation();
  const p = location.params;
  const uid = p.get('uid') ?? undefined;
  const search = p.get('q') ?? '';
  const budget = BUDGETS.find((b) => String(b) === p.get('budget')) ?? 200;
  const mode = MODES.find((m) => m.id === p.get('mode'))?.id ?? 'auto';
  const [text, setText] = useState(search);
  const [types, setTypes] = useState<ReadonlySet<EdgeType>>(new Set());
  const select = (next: string) => navigate(withParams(location, { uid: next }));

  const exportQuery: ExportQuery = {
    max_nodes: budget,
    mode,
    ...(uid ? { root: uid } : {}),
    ...(types.size > 0 ? { edge_types: [...types] } : {}),
  };
  const view = useQuery(`export:${JSON.stringify(exportQuery)}`, (signal) =>
    graphExport(exportQuery, signal),
  );
  const data = view.state.value?.data;
  const nodes = useMemo(
    () => (data?.nodes ?? []).map((n) => ({ id: n.uid, label: n.label, kind: n.kind })),
    [data?.nodes],
  );
  const edges = useMemo(() => data?.edges ?? [], [data?.edges]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(withParams(location, { q: text.trim() || null }));
  };
  const toggle = (t: EdgeType) =>
    setTypes((s) => {
      const n = new Set(s);
      if (n.has(t)) n.delete(t);
      else n.add(t);
      return n;
    });

  return (
    <div className="explorer">
      <div className="explorer-controls">
        <form onSubmit={submit}>
          <search className="search-box">
            <label htmlFor="graph-q" className="visually-hidden">
              Search symbols
            </label>
            <input
              id="graph-q"
              type="search"
              placeholder="Symbol, file or heading"
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
            />
            <button type="submit">Search</button>
          </search>
        </form>
        {search ? <Results query={search} onSelect={select} /> : null}
        <fieldset>
          <legend>View</legend>
          {MODES.map((m) => (
            <label key={m.id}>
              <input
                type="radio"
                name="mode"
                checked={mode === m.id}
                onChange={() => navigate(withParams(location, { mode: m.id }), { replace: true })}
              />{' '}
              {m.label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Node budget</legend>
          {BUDGETS.map((b) => (
            <label key={b}>
              <input
                type="radio"
                name="budget"
                checked={budget === b}
                onChange={() => navigate(withParams(location, { budget: String(b) }), { replace: true })}
              />{' '}
              {b}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Edge types (none: the export's default)</legend>
          {EDGE_TYPES.map((t) => (
            <label key={t} className="check">
              <input type="checkbox" checked={types.has(t)} onChange={() => toggle(t)} /> {t}
            </label>
          ))}
        </fieldset>
        <details className="tree-box">
          <summary>Containment tree</summary>
          <ContainmentTree root={undefined} onSelect={select} />
        </details>
        {uid ? (
          <p>
            Around <code>{uid}</code>{' '}
            <button
              type="button"
              className="link"
              onClick={() => navigate(withParams(location, { uid: null }))}
            >
              back to the whole repository
            </button>
          </p>
        ) : null}
      </div>
      <div className="explorer-main">
        {view.state.status === 'error' ? (
          <ErrorNotice error={view.state.error} onRetry={view.reload} module="graph" />
        ) : null}
        {data ? (
          <p className="muted" data-testid="graph-summary">
            {count(data.node_count, 'node')}, {count(data.edge_count, 'edge')} ({data.mode})
          </p>
        ) : null}
        <TruncatedNotice meta={view.state.value?.meta} />
        {nodes.length > 0 ? (
          <>
            <KindLegend nodes={nodes} />
            <Suspense fallback={<p className="muted">Loading the graph view…</p>}>
              <GraphCanvas nodes={nodes} edges={edges} selected={uid} onSelect={select} />
            </Suspense>
          </>
        ) : view.state.value ? (
          <p className="muted">Nothing to draw yet: the index may still be running.</p>
        ) : null}
      </div>
      {uid ? <NodePanel key={uid} uid={uid} onSelect={select} /> : null}
    </div>
  );
}
