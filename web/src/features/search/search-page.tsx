// Search: one box across tasks, docs, memory and code symbols, grouped by layer; each result opens where
// it lives (a task in the board's drawer, a symbol on the Graph page, a memory or doc in place).
import { type FormEvent, type ReactNode, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Highlight } from '../../components/highlight.tsx';
import { Page } from '../../components/page.tsx';
import { Link, navigate, useLocation, withParams } from '../../lib/router.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { docHeader, observation, searchDocs, searchMemory, searchSymbols, searchTasks } from './api.ts';
import { ResultGroup } from './result-group.tsx';

function DocDetails({ path }: { path: string }) {
  const query = useQuery(`doc-header:${path}`, (signal) => docHeader(path, signal));
  const v = query.state.value?.data;
  if (query.state.status === 'error')
    return <ErrorNotice error={query.state.error} onRetry={query.reload} compact />;
  if (!v) return <p className="muted">Loading…</p>;
  return (
    <dl className="facts">
      <dt>Title</dt>
      <dd>{v.title ?? '(none)'}</dd>
      <dt>Type</dt>
      <dd>
        {v.doc_type} ({v.format}), {v.chunk_count} sections
      </dd>
      <dt>Indexed</dt>
      <dd>{new Date(v.indexed_at).toLocaleString()}</dd>
    </dl>
  );
}

function MemoryDetails({ id }: { id: number }) {
  const query = useQuery(`observation:${id}`, (signal) => observation(id, signal));
  const v = query.state.value?.data;
  if (query.state.status === 'error')
    return <ErrorNotice error={query.state.error} onRetry={query.reload} compact />;
  if (!v) return <p className="muted">Loading…</p>;
  return (
    <div className="memory-details">
      <p>{v.narrative}</p>
      {v.facts.length > 0 ? (
        <ul>
          {v.facts.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      ) : null}
      {v.files.length > 0 ? (
        <p className="muted">
          Files: <code>{v.files.join(', ')}</code>
        </p>
      ) : null}
    </div>
  );
}

function Expandable({ label, children }: { label: string; children: () => ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="link" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? 'Hide' : label}
      </button>
      {open ? children() : null}
    </>
  );
}

export default function SearchPage() {
  const location = useLocation();
  const q = (location.params.get('q') ?? '').trim();
  const [text, setText] = useState(q);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(withParams(location, { q: text.trim() || null }));
  };
  return (
    <Page title="Search">
      <form className="search-form" onSubmit={submit}>
        <search className="search-box">
          <label htmlFor="search-q" className="visually-hidden">
            Search tasks, docs, memory and code
          </label>
          <input
            id="search-q"
            type="search"
            placeholder="Search tasks, docs, memory and code"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit" className="primary">
            Search
          </button>
        </search>
      </form>
      {!q ? (
        <p className="muted">Type words and press Enter. Results are grouped by where they live.</p>
      ) : (
        <div className="grid" data-testid="search-results">
          <ResultGroup
            title="Tasks"
            module="tasks"
            query={q}
            search={searchTasks}
            keyOf={(r) => r.id}
            render={(r) => (
              <>
                <Link to={`/board?task=${encodeURIComponent(r.id)}`}>
                  {r.id}: {r.title}
                </Link>{' '}
                <span className="muted">
                  {r.status} · {r.priority} · {r.kind}
                </span>
                <div>
                  <Highlight text={r.snippet} />
                </div>
              </>
            )}
          />
          <ResultGroup
            title="Docs"
            module="docs"
            query={q}
            search={searchDocs}
            keyOf={(r) => `${r.path}:${r.chunk_index}`}
            render={(r) => (
              <>
                <strong>{r.heading_path.length > 0 ? r.heading_path.join(' › ') : r.path}</strong>{' '}
                <code className="muted">
                  {r.path}
                  {r.anchor ? `#${r.anchor}` : ''}
                </code>
                <div>
                  <Highlight text={r.snippet} />
                </div>
                <Expandable label="About this document">{() => <DocDetails path={r.path} />}</Expandable>
              </>
            )}
          />
          <ResultGroup
            title="Memory"
            module="memory"
            query={q}
            search={searchMemory}
            keyOf={(r) => String(r.id)}
            render={(r) => (
              <>
                <strong>{r.title}</strong>{' '}
                <span className="muted">
                  {r.type} · confidence {Math.round(r.confidence * 100)}%
                  {r.machine ? ` · from ${r.machine}` : ''}
                  {r.task_id ? ' · ' : ''}
                </span>
                {r.task_id ? (
                  <Link to={`/board?task=${encodeURIComponent(r.task_id)}`}>{r.task_id}</Link>
                ) : null}
                <div>
                  <Highlight text={r.snippet} />
                </div>
                <Expandable label="Read it">{() => <MemoryDetails id={r.id} />}</Expandable>
              </>
            )}
          />
          <ResultGroup
            title="Code symbols"
            module="graph"
            query={q}
            search={searchSymbols}
            keyOf={(r) => r.uid}
            render={(r) => (
              <>
                <Link to={`/graph?uid=${encodeURIComponent(r.uid)}`}>{r.label}</Link>{' '}
                <span className="muted">
                  {r.kind}
                  {r.file_path ? ` · ${r.file_path}${r.start_line ? `:${r.start_line}` : ''}` : ''}
                </span>
              </>
            )}
          />
        </div>
      )}
    </Page>
  );
}
