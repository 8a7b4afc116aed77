// The Review page: one change (the working tree, a branch or range, a commit, or a task's whole change)
// as the diff, each changed symbol with what it can break, the tests to run and the tasks it touches,
// and a picture of the changed symbols with their dependents on the Graph page's canvas.
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Page } from '../../components/page.tsx';
import { count } from '../../lib/plural.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { KindLegend } from '../graph/kinds.tsx';
import { changeGraph, loadChanges, type Report, type Source, sourceFrom } from './api.ts';
import { FileDiff } from './diff-view.tsx';

// The one graph canvas of the SPA (sigma and graphology), loaded only when the picture is opened.
const GraphCanvas = lazy(() => import('../graph/graph-canvas.tsx').then((m) => ({ default: m.GraphCanvas })));

function describe(source: Source): string {
  switch (source.kind) {
    case 'task':
      return `${source.id}'s change`;
    case 'commit':
      return `commit ${source.sha.slice(0, 12)}`;
    case 'range':
      return source.head ? `${source.base} → ${source.head}` : `${source.base} → working tree`;
    default:
      return 'the working tree against HEAD';
  }
}

function SourceForm({ source }: { source: Source }) {
  const [kind, setKind] = useState<Source['kind']>(source.kind);
  const [a, setA] = useState(
    source.kind === 'task'
      ? source.id
      : source.kind === 'commit'
        ? source.sha
        : source.kind === 'range'
          ? source.base
          : '',
  );
  const [b, setB] = useState(source.kind === 'range' ? (source.head ?? '') : '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (kind === 'task' && a.trim()) q.set('task', a.trim());
    if (kind === 'commit' && a.trim()) q.set('commit', a.trim());
    if (kind === 'range' && a.trim()) {
      q.set('base', a.trim());
      if (b.trim()) q.set('head', b.trim());
    }
    const query = q.toString();
    navigate(query ? `/review?${query}` : '/review');
  };
  const label = { task: 'Task id', commit: 'Commit', range: 'Base (branch, tag, a..b)', working_tree: '' }[
    kind
  ];
  return (
    <form className="review-source" onSubmit={submit} aria-label="What to review">
      <label>
        Review{' '}
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Source['kind'])}>
          <option value="working_tree">the working tree</option>
          <option value="range">a branch or range</option>
          <option value="commit">a commit</option>
          <option value="task">a task</option>
        </select>
      </label>
      {kind !== 'working_tree' ? (
        <label>
          {label} <input value={a} onChange={(e) => setA(e.currentTarget.value)} size={24} />
        </label>
      ) : null}
      {kind === 'range' ? (
        <label>
          Head (default: working tree){' '}
          <input value={b} onChange={(e) => setB(e.currentTarget.value)} size={24} />
        </label>
      ) : null}
      <button type="submit">Show</button>
    </form>
  );
}

const RISK_BADGE = {
  none: 'badge-ok',
  low: 'badge-info',
  medium: 'badge-warn',
  high: 'badge-error',
} as const;

/** How a commit was tied to the task, in words (the API's `link`). */
const LINK_WORDS: Record<string, string> = {
  trailer: 'names the task in a trailer',
  message: 'names the task in its message',
  branch: "on the task's branch",
  merge: "merges the task's branch",
};

function Summary({ data, source }: { data: Report; source: Source }) {
  const s = data.summary;
  return (
    <section className="card" aria-label="Summary">
      <div className="card-header">
        <h2>Risk</h2>
        <span className={`badge ${RISK_BADGE[data.risk_level]}`}>{data.risk_level}</span>
      </div>
      <p>
        {count(s.files, 'file')}, {count(s.symbols, 'changed symbol')},{' '}
        {count(s.will_break, 'direct dependent')} that may break, {count(s.consumers, 'dependent')} in all,{' '}
        {count(s.tests, 'test file')} to run, {count(s.tasks, 'task')} naming the files.
      </p>
      <ul className="risk-reasons">
        {data.risk_reasons.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      {'commits' in data && data.commits.length > 0 ? (
        <>
          <h3>Commits</h3>
          <ul className="commit-list">
            {data.commits.map((c) => (
              <li key={c.sha}>
                <Link to={`/review?commit=${c.sha}`}>
                  <code>{c.sha.slice(0, 10)}</code>
                </Link>{' '}
                {c.subject}{' '}
                <span className="muted">
                  ({c.author}, {new Date(c.time).toLocaleString()}, {LINK_WORDS[c.link] ?? c.link})
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {source.kind === 'task' && 'mode' in data ? (
        <p className="muted">
          {data.mode === 'branch'
            ? `Branch ${data.head} against ${data.base}.`
            : data.mode === 'commits'
              ? `From ${data.base?.slice(0, 10) ?? 'the first commit'} to ${data.head?.slice(0, 10)}.`
              : 'No commit names this task yet.'}
        </p>
      ) : null}
    </section>
  );
}

function Symbols({ data }: { data: Report }) {
  if (data.changes.symbols.length === 0) return null;
  return (
    <section className="card wide" aria-label="Changed symbols">
      <h2>Changed symbols</h2>
      <table className="symbols-table">
        <thead>
          <tr>
            <th scope="col">Symbol</th>
            <th scope="col">Will break</th>
            <th scope="col">Should review</th>
            <th scope="col">Tests</th>
          </tr>
        </thead>
        <tbody>
          {data.changes.symbols.map((s) => (
            <tr key={s.uid}>
              <td>
                <Link to={`/graph?uid=${encodeURIComponent(s.uid)}`}>{s.label}</Link>{' '}
                <span className="muted">
                  {s.kind} · {s.file_path}
                  {s.start_line ? `:${s.start_line}` : ''}
                </span>
              </td>
              <td>{s.will_break.length ? s.will_break.map((u) => <div key={u}>{short(u)}</div>) : '—'}</td>
              <td>
                {s.should_review.length ? s.should_review.map((u) => <div key={u}>{short(u)}</div>) : '—'}
              </td>
              <td>
                {s.tests.length ? (
                  s.tests.map((t) => <div key={t}>{t}</div>)
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** `code:function:src/a.ts::run` → `run (src/a.ts)`: the uid's tail is what a reader scans for. */
function short(uid: string): string {
  const m = /^[a-z_]+:[a-z_]+:(.+?)(?:::(.+))?$/.exec(uid);
  if (!m) return uid;
  return m[2] ? `${m[2]} (${m[1]})` : (m[1] ?? uid);
}

function Affected({ data }: { data: Report }) {
  return (
    <div className="grid">
      <section className="card" aria-label="Tests to run">
        <h2>Tests to run</h2>
        {data.affected.tests.length === 0 ? (
          <p className="muted">No test in the graph covers these changes.</p>
        ) : null}
        <ul>
          {data.affected.tests.map((t) => (
            <li key={t.path}>
              <code>{t.path}</code>
            </li>
          ))}
        </ul>
      </section>
      <section className="card" aria-label="Affected tasks">
        <h2>Affected tasks</h2>
        {data.affected.tasks.length === 0 ? <p className="muted">No task names these files.</p> : null}
        <ul>
          {data.affected.tasks.map((t) => (
            <li key={t.id}>
              <Link to={`/board?task=${encodeURIComponent(t.id)}`}>{t.id}</Link> {t.title}{' '}
              <span className="muted">({t.status})</span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

export default function ReviewPage() {
  const location = useLocation();
  const source = sourceFrom(location.params);
  const key = JSON.stringify(source);
  const changes = useQuery(`review:${key}`, (signal) => loadChanges(source, signal));
  const [layout, setLayout] = useState<'unified' | 'split'>('unified');
  const [picture, setPicture] = useState(false);
  const data = changes.state.value?.data;
  const graph = data && picture ? changeGraph(data) : undefined;
  return (
    <Page
      title="Review"
      actions={
        <fieldset className="segmented" aria-label="Diff layout">
          <button type="button" aria-pressed={layout === 'unified'} onClick={() => setLayout('unified')}>
            Unified
          </button>
          <button type="button" aria-pressed={layout === 'split'} onClick={() => setLayout('split')}>
            Side by side
          </button>
        </fieldset>
      }
    >
      <SourceForm key={key} source={source} />
      <p className="muted">Reviewing {describe(source)}.</p>
      {changes.state.status === 'error' ? (
        <ErrorNotice error={changes.state.error} onRetry={changes.reload} />
      ) : null}
      {changes.state.status === 'loading' && !data ? <p className="muted">Reading the change…</p> : null}
      {data ? (
        <>
          <div className="grid">
            <Summary data={data} source={source} />
          </div>
          <Symbols data={data} />
          <Affected data={data} />
          {data.changes.symbols.length > 0 ? (
            <section className="card wide" aria-label="Picture">
              <div className="card-header">
                <h2>On the graph</h2>
                <button type="button" onClick={() => setPicture((p) => !p)} aria-expanded={picture}>
                  {picture ? 'Hide' : 'Show the changed symbols and their dependents'}
                </button>
              </div>
              {graph ? (
                <>
                  <KindLegend nodes={graph.nodes} />
                  <Suspense fallback={<p className="muted">Loading the canvas…</p>}>
                    <GraphCanvas nodes={graph.nodes} edges={graph.edges} layoutMs={1500} />
                  </Suspense>
                </>
              ) : null}
            </section>
          ) : null}
          <section aria-label="Diff">
            <h2>Diff</h2>
            {data.changes.files.length === 0 ? <p className="muted">Nothing changed.</p> : null}
            {data.changes.files.map((f) => (
              <FileDiff key={`${f.old_path ?? ''}>${f.path}`} file={f} layout={layout} />
            ))}
          </section>
        </>
      ) : null}
    </Page>
  );
}
