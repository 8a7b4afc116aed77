// The Map page: the repository as its groups of code (communities, drawn as clusters: each group's disc
// with its most central symbols around it, groups that depend on each other joined), the API surface as
// a filterable table, the entry points and the most depended-on symbols. A symbol opens on the Graph
// page. It refreshes when the index does.
import { lazy, Suspense, useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import type { CanvasEdge, CanvasNode } from '../../components/graph-canvas/graph-canvas.tsx';
import { KindLegend, KindSwatch } from '../../components/graph-canvas/kinds.tsx';
import { ModuleGate } from '../../components/module-gate.tsx';
import { Page } from '../../components/page.tsx';
import { count } from '../../lib/plural.ts';
import { Link, navigate } from '../../lib/router.tsx';
import { field, throttle, useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import {
  apiSurface,
  type Communities,
  mapCommunities,
  mapOverview,
  type Overview,
  type SurfaceEntry,
  type SurfaceKind,
} from './api.ts';

const GraphCanvas = lazy(() =>
  import('../../components/graph-canvas/graph-canvas.tsx').then((m) => ({ default: m.GraphCanvas })),
);

/** Groups drawn (the largest); the list below names them all page by page through the tool. */
const GROUPS_DRAWN = 30;
const COMMUNITY = 'community:';

const graphLink = (uid: string) => `/graph?uid=${encodeURIComponent(uid)}`;

/** Each group a disc (kind folder: a group is named after its folder), its central symbols around it. */
function clusters(d: Communities): { nodes: CanvasNode[]; edges: CanvasEdge[] } {
  const nodes: CanvasNode[] = [];
  const edges: CanvasEdge[] = [];
  const seen = new Set<string>();
  for (const c of d.communities) {
    const id = `${COMMUNITY}${c.id}`;
    nodes.push({ id, label: `${c.name} (${c.size})`, kind: 'folder' });
    for (const s of c.central) {
      if (!seen.has(s.uid)) {
        seen.add(s.uid);
        nodes.push({ id: s.uid, label: s.label, kind: s.kind });
      }
      edges.push({ source: id, target: s.uid, type: 'contains' });
    }
  }
  const drawn = new Set(d.communities.map((c) => c.id));
  for (const c of d.communities)
    for (const l of c.links)
      if (l.community > c.id && drawn.has(l.community))
        edges.push({ source: `${COMMUNITY}${c.id}`, target: `${COMMUNITY}${l.community}`, type: 'imports' });
  return { nodes, edges };
}

function CommunitiesCard({ reloadKey }: { reloadKey: number }) {
  const query = useQuery(`map-communities:${reloadKey}`, (signal) => mapCommunities(GROUPS_DRAWN, signal));
  const d = query.state.value?.data;
  const drawing = useMemo(() => (d ? clusters(d) : undefined), [d]);
  const [selected, setSelected] = useState<number | undefined>();
  const select = (id: string) => {
    if (id.startsWith(COMMUNITY)) setSelected(Number(id.slice(COMMUNITY.length)));
    else navigate(graphLink(id));
  };
  const group = d?.communities.find((c) => c.id === selected);
  return (
    <section className="card wide" aria-labelledby="map-groups-title" data-testid="map-communities">
      <h2 id="map-groups-title">Groups of code</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} module="graph" />
      ) : null}
      {d && d.total_count > 0 ? (
        <p className="muted" data-testid="map-summary">
          {count(d.total_count, 'group')} of files that depend on each other more than on the rest (modularity{' '}
          {d.modularity.toFixed(2)})
          {d.isolated > 0
            ? `; ${count(d.isolated, 'file')} on ${d.isolated === 1 ? 'its' : 'their'} own`
            : ''}
          . Each brown disc is a group, named after its folder, with its most central symbols around it.
        </p>
      ) : null}
      {drawing && drawing.nodes.length > 0 ? (
        <>
          <KindLegend nodes={drawing.nodes} />
          <Suspense fallback={<p className="muted">Loading the drawing…</p>}>
            <GraphCanvas
              nodes={drawing.nodes}
              edges={drawing.edges}
              selected={selected === undefined ? undefined : `${COMMUNITY}${selected}`}
              onSelect={select}
              layoutMs={2000}
            />
          </Suspense>
        </>
      ) : d ? (
        <p className="muted">No groups yet: the index may still be running, or the code has no edges.</p>
      ) : null}
      {d && d.communities.length > 0 ? (
        <ol className="map-groups" data-testid="map-group-list">
          {d.communities.map((c) => (
            <li key={c.id} className={c.id === selected ? 'selected' : undefined}>
              <button type="button" className="link" onClick={() => setSelected(c.id)}>
                {c.name}
              </button>{' '}
              <span className="muted">
                {count(c.size, 'file')}
                {c.links.length > 0
                  ? `; most linked to ${c.links
                      .slice(0, 3)
                      .map((l) => `#${l.community}`)
                      .join(', ')}`
                  : ''}
              </span>
              <ul className="chips">
                {c.central.map((s) => (
                  <li key={s.uid}>
                    <KindSwatch kind={s.kind} /> <Link to={graphLink(s.uid)}>{s.label}</Link>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      ) : null}
      {group ? (
        <p data-testid="map-group-detail">
          <strong>{group.name}</strong>: first files{' '}
          {group.members.map((m, i) => (
            <span key={m}>
              {i > 0 ? ', ' : ''}
              <Link to={graphLink(m)}>{m.replace(/^code:file:/, '')}</Link>
            </span>
          ))}
          {group.size > group.members.length
            ? ` and ${count(group.size - group.members.length, 'more')}`
            : ''}
          .
        </p>
      ) : null}
    </section>
  );
}

const KIND_LABEL: Record<SurfaceKind, [string, string]> = {
  route: ['route', 'HTTP routes'],
  mcp_tool: ['MCP tool', 'MCP tools'],
  cli_command: ['command', 'CLI commands'],
  event_handler: ['event handler', 'event handlers'],
};

/**
 * What the repository exposes, read whole from cos_graph_api_surface (the overview names only a few):
 * one kind at a time, routes first, filtered as you type; a handler opens on the Graph page.
 */
function ApiSurface({ reloadKey }: { reloadKey: number }) {
  const [kind, setKind] = useState<SurfaceKind>('route');
  const [filter, setFilter] = useState('');
  const [more, setMore] = useState<SurfaceEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const query = useQuery(`map-surface:${kind}:${reloadKey}`, (signal) => apiSurface(kind, undefined, signal));
  const d = query.state.value?.data;
  // A new first page (another kind, a new index) starts the table again.
  const [pageOf, setPageOf] = useState(d);
  if (pageOf !== d) {
    setPageOf(d);
    setMore([]);
    setCursor(undefined);
  }
  const entries = [...(d?.entries ?? []), ...more];
  const next = cursor === undefined ? d?.next_cursor : cursor;
  const f = filter.trim().toLowerCase();
  const shown = f
    ? entries.filter((e) =>
        [e.method ?? '', e.path ?? '', e.name, e.handler?.label ?? '', e.file].some((x) =>
          x.toLowerCase().includes(f),
        ),
      )
    : entries;
  const [one, many] = KIND_LABEL[kind];
  const total = d?.total ?? 0;
  const loadMore = async () => {
    if (!next) return;
    const page = await apiSurface(kind, next);
    if (page.ok) {
      setMore((m) => [...m, ...page.value.data.entries]);
      setCursor(page.value.data.next_cursor);
    }
  };
  return (
    <section className="card wide" aria-labelledby="map-api-title" data-testid="map-api">
      <h2 id="map-api-title">API surface</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} module="graph" compact />
      ) : null}
      <div className="toolbar">
        <label>
          Show{' '}
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as SurfaceKind)}>
            {(Object.keys(KIND_LABEL) as SurfaceKind[]).map((k) => (
              <option key={k} value={k}>
                {KIND_LABEL[k][1]}
                {d?.by_kind[k] !== undefined ? ` (${d.by_kind[k]})` : ''}
              </option>
            ))}
          </select>
        </label>
        {entries.length > 0 ? (
          <label>
            Filter {kind === 'route' ? 'routes' : 'entries'}{' '}
            <input type="search" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} />
          </label>
        ) : null}
      </div>
      {d && entries.length === 0 ? (
        <p className="muted">No {many} are known in this repository's graph.</p>
      ) : null}
      {entries.length > 0 ? (
        <>
          <p className="muted">
            {shown.length === entries.length ? count(total, one) : `${shown.length} of ${count(total, one)}`}
            {entries.length < total ? ` (the first ${entries.length} loaded)` : ''}
          </p>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  {kind === 'route' ? (
                    <>
                      <th scope="col">Method</th>
                      <th scope="col">Path</th>
                    </>
                  ) : (
                    <th scope="col">Name</th>
                  )}
                  <th scope="col">Handler</th>
                  <th scope="col">File</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((e) => (
                  <tr key={e.uid}>
                    {kind === 'route' ? (
                      <>
                        <td>{e.method ?? 'any'}</td>
                        <td>
                          <code>{e.path ?? e.name}</code>
                        </td>
                      </>
                    ) : (
                      <td>
                        <code>{e.name}</code>
                      </td>
                    )}
                    <td>{e.handler ? <Link to={graphLink(e.handler.uid)}>{e.handler.label}</Link> : '—'}</td>
                    <td>
                      {e.file}:{e.line}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {next ? (
            <button type="button" onClick={() => void loadMore()}>
              Load more
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Facts({ o }: { o: Overview }) {
  return (
    <>
      <section className="card" aria-labelledby="map-size-title" data-testid="map-size">
        <h2 id="map-size-title">Repository</h2>
        <dl className="facts">
          <dt>Files</dt>
          <dd>{o.size.files.toLocaleString()}</dd>
          <dt>Symbols and files</dt>
          <dd>{o.size.nodes.toLocaleString()}</dd>
          <dt>Languages</dt>
          <dd>{o.languages.map((l) => `${l.language} ${l.files}`).join(', ') || '—'}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="map-entry-title" data-testid="map-entry-points">
        <h2 id="map-entry-title">Entry points</h2>
        {o.entry_points && o.entry_points.items.length > 0 ? (
          <ul>
            {o.entry_points.items.map((e) => (
              <li key={e.uid}>
                <Link to={graphLink(e.uid)}>{e.label}</Link> <span className="muted">{e.file ?? ''}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No entry points are known in this repository's graph.</p>
        )}
      </section>
      <section className="card" aria-labelledby="map-top-title" data-testid="map-top">
        <h2 id="map-top-title">Most depended on</h2>
        {o.most_depended_on.length === 0 ? (
          <p className="muted">Nothing depends on anything yet: the index may still be running.</p>
        ) : null}
        <ol>
          {o.most_depended_on.map((s) => (
            <li key={s.uid}>
              <KindSwatch kind={s.kind} /> <Link to={graphLink(s.uid)}>{s.label}</Link>{' '}
              <span className="muted">
                {s.file ?? 'external'}, {count(s.in_degree, 'dependent')}
              </span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

export default function MapPage() {
  const [reloadKey, setReloadKey] = useState(0);
  const overview = useQuery(`map-overview:${reloadKey}`, (signal) => mapOverview(signal));
  const refresh = useMemo(() => throttle(() => setReloadKey((k) => k + 1), 1000), []);
  useHubEvents(['index-progress'], (event) => {
    if (field(event.data, 'layer', 'string') === 'docs') return;
    if (field(event.data, 'phase', 'string') === 'done') refresh();
  });
  const o = overview.state.value?.data;
  return (
    <Page title="Map">
      <ModuleGate modules={['graph']}>
        {overview.state.status === 'error' ? (
          <ErrorNotice error={overview.state.error} onRetry={overview.reload} module="graph" />
        ) : null}
        {o ? null : overview.state.status === 'loading' ? <p className="muted">Loading the map…</p> : null}
        <CommunitiesCard reloadKey={reloadKey} />
        {o ? (
          <div className="grid">
            <Facts o={o} />
          </div>
        ) : null}
        <ApiSurface reloadKey={reloadKey} />
      </ModuleGate>
    </Page>
  );
}
