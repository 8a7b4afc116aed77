// What the graph knows about one node, in four panels: context (its neighbours by edge type),
// references (who points at it), impact (what breaks if it changes) and a rename plan.
import { type FormEvent, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { KindSwatch } from '../../components/graph-canvas/kinds.tsx';
import { TruncatedNotice } from '../../components/truncated-notice.tsx';
import { count } from '../../lib/plural.ts';
import { type Query, useQuery } from '../../lib/use-query.ts';
import { graphContext, graphImpact, graphReferences, graphRenamePlan } from './api.ts';

type Tab = 'context' | 'references' | 'impact' | 'rename';
const TABS: { id: Tab; label: string }[] = [
  { id: 'context', label: 'Context' },
  { id: 'references', label: 'References' },
  { id: 'impact', label: 'Impact' },
  { id: 'rename', label: 'Rename plan' },
];

interface Item {
  uid: string;
  label: string;
  kind: string;
  file_path: string | null;
  line?: number | null;
  /** Context: how many sites reach this neighbour (call sites of one helper are one entry). */
  count?: number;
}

function ItemList({ items, onSelect }: { items: Item[]; onSelect: (uid: string) => void }) {
  return (
    <ul className="results">
      {items.map((it, i) => (
        // The same node can be listed twice (reached by two edges); its position tells them apart.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <li key={`${it.uid}:${i}`}>
          <button type="button" className="link" onClick={() => onSelect(it.uid)}>
            {it.label}
          </button>{' '}
          <span className="muted">
            <KindSwatch kind={it.kind} /> {it.kind}
            {it.file_path ? ` · ${it.file_path}${it.line ? `:${it.line}` : ''}` : ''}
            {it.count && it.count > 1 ? ` · ×${it.count}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Ambiguous({ results, onSelect }: { results: Item[]; onSelect: (uid: string) => void }) {
  return (
    <>
      <p>That name matches several nodes; pick one:</p>
      <ItemList items={results} onSelect={onSelect} />
    </>
  );
}

type ContextQuery = Query<Extract<Awaited<ReturnType<typeof graphContext>>, { ok: true }>['value']>;

function ContextPanel({ q, onSelect }: { q: ContextQuery; onSelect: (uid: string) => void }) {
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Loading…</p>;
  const d = v.data;
  if ('ambiguous' in d) return <Ambiguous results={d.results} onSelect={onSelect} />;
  return (
    <>
      <dl className="facts">
        <dt>Kind</dt>
        <dd>
          <KindSwatch kind={d.node.kind} /> {d.node.kind}
        </dd>
        <dt>Name</dt>
        <dd>
          <code>{d.node.qualified_name}</code>
        </dd>
        {d.node.file_path ? (
          <>
            <dt>File</dt>
            <dd>
              <code>
                {d.node.file_path}
                {d.node.start_line ? `:${d.node.start_line}` : ''}
              </code>
            </dd>
          </>
        ) : null}
        {d.node.signature ? (
          <>
            <dt>Signature</dt>
            <dd>
              <code>{d.node.signature}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {Object.entries(d.edges_by_type).map(([type, list]) => (
        <section key={type}>
          <h4>
            {type}{' '}
            <span className="muted">
              ({d.edge_counts[type]?.out ?? 0} out, {d.edge_counts[type]?.in ?? 0} in)
            </span>
          </h4>
          <ItemList
            items={list.map((e) => ({ ...e, label: `${e.direction === 'out' ? '→' : '←'} ${e.label}` }))}
            onSelect={onSelect}
          />
        </section>
      ))}
      <TruncatedNotice meta={v.meta} />
    </>
  );
}

function ReferencesPanel({ uid, onSelect }: { uid: string; onSelect: (uid: string) => void }) {
  const q = useQuery(`refs:${uid}`, (signal) => graphReferences(uid, signal));
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Loading…</p>;
  const d = v.data;
  if ('ambiguous' in d) return <Ambiguous results={d.results} onSelect={onSelect} />;
  return (
    <>
      <p>
        {count(d.total_count, 'reference')}
        {Object.keys(d.by_kind).length > 0
          ? ` (${Object.entries(d.by_kind)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')})`
          : ''}
      </p>
      <ItemList
        items={d.references.map((r) => ({ ...r, label: `${r.edge_type}: ${r.label}` }))}
        onSelect={onSelect}
      />
      <TruncatedNotice meta={v.meta} shown={d.references.length} total={d.total_count} />
    </>
  );
}

function ImpactPanel({ uid, onSelect }: { uid: string; onSelect: (uid: string) => void }) {
  const q = useQuery(`impact:${uid}`, (signal) => graphImpact(uid, signal));
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Loading…</p>;
  const d = v.data;
  if ('ambiguous' in d) return <Ambiguous results={d.results} onSelect={onSelect} />;
  return (
    <>
      <p>
        {d.impacted_count} impacted across {count(d.files_affected, 'file')} ({d.direction}, depth {d.depth})
      </p>
      {(
        [
          ['will_break', '✗ Will break'],
          ['should_review', '! Should review'],
          ['context', '· Context'],
        ] as const
      ).map(([tier, title]) => (
        <section key={tier}>
          <h4>
            {title} <span className="muted">({d.tier_counts[tier]})</span>
          </h4>
          <ItemList items={d.tiers[tier]} onSelect={onSelect} />
        </section>
      ))}
      <TruncatedNotice meta={v.meta} />
    </>
  );
}

function RenamePanel({ uid, onSelect }: { uid: string; onSelect: (uid: string) => void }) {
  const [draft, setDraft] = useState('');
  const [name, setName] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setName(draft.trim());
  };
  return (
    <>
      <form className="inline-form" onSubmit={submit}>
        <label>
          New name <input type="text" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />
        </label>{' '}
        <button type="submit" disabled={!draft.trim()}>
          Plan
        </button>
      </form>
      {name ? <RenamePlan uid={uid} name={name} onSelect={onSelect} /> : null}
    </>
  );
}

function RenamePlan({ uid, name, onSelect }: { uid: string; name: string; onSelect: (uid: string) => void }) {
  const q = useQuery(`rename:${uid}:${name}`, (signal) => graphRenamePlan(uid, name, signal));
  if (q.state.status === 'error')
    return <ErrorNotice error={q.state.error} onRetry={q.reload} module="graph" />;
  const v = q.state.value;
  if (!v) return <p className="muted">Loading…</p>;
  const d = v.data;
  if ('ambiguous' in d) return <Ambiguous results={d.results} onSelect={onSelect} />;
  const groups = [
    ['Definitions', d.definitions],
    ['Call sites', d.call_sites],
    ['Imports', d.import_sites],
    ['Tests', d.test_references],
    ['Docs', d.doc_references],
    ['Strings', d.string_literals],
  ] as const;
  return (
    <>
      <p>
        <strong>
          {d.old_name} → {d.new_name}
        </strong>
        : {count(d.total_edits, 'edit')} in {count(d.files, 'file')}; risk{' '}
        <span className={`badge badge-risk-${d.risk}`}>{d.risk}</span>
      </p>
      {d.risk_reasons.length > 0 ? (
        <ul>
          {d.risk_reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      ) : null}
      {groups.map(([title, sites]) =>
        sites.length > 0 ? (
          <section key={title}>
            <h4>
              {title} <span className="muted">({sites.length})</span>
            </h4>
            <ul className="results">
              {sites.map((s) => (
                <li key={`${s.file_path}:${s.line}:${s.column}`}>
                  <code>
                    {s.file_path}:{s.line}
                  </code>{' '}
                  <span className="muted">{s.text}</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null,
      )}
      <TruncatedNotice meta={v.meta} />
    </>
  );
}

/**
 * What a uid names, for the title until the hub answers: `code:method:src/a.ts::Shape.area` → `Shape.area`,
 * `code:file:src/a.ts` → `a.ts`, `doc:heading:README.md#usage` → `usage` (DESIGN.md's uid forms).
 */
export function uidLabel(uid: string): string {
  const symbol = uid.lastIndexOf('::');
  if (symbol >= 0) return uid.slice(symbol + 2);
  const heading = uid.indexOf('#');
  if (uid.startsWith('doc:heading:') && heading >= 0) return uid.slice(heading + 1);
  const path = uid.replace(/^(folder|code:file|doc:file|code:external):/, '');
  return path.split('/').filter(Boolean).pop() ?? uid;
}

export function NodePanel({ uid, onSelect }: { uid: string; onSelect: (uid: string) => void }) {
  const [tab, setTab] = useState<Tab>('context');
  // The context names the node for the title and fills the first tab: one request for both.
  const context = useQuery(`ctx:${uid}`, (signal) => graphContext(uid, signal));
  const data = context.state.value?.data;
  const node = data && 'node' in data ? data.node : undefined;
  return (
    <section className="card node-panel" aria-labelledby="node-title" data-testid="node-panel">
      <h2 id="node-title" className="node-title">
        {node ? <KindSwatch kind={node.kind} /> : null} {node?.label ?? uidLabel(uid)}{' '}
        {node ? <span className="muted node-kind">{node.kind}</span> : null}
      </h2>
      <p className="node-uid">
        <code>{uid}</code>
      </p>
      <div role="tablist" aria-label="About this node" className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? 'tab tab-current' : 'tab'}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={TABS.find((t) => t.id === tab)?.label}>
        {tab === 'context' ? <ContextPanel q={context} onSelect={onSelect} /> : null}
        {tab === 'references' ? <ReferencesPanel uid={uid} onSelect={onSelect} /> : null}
        {tab === 'impact' ? <ImpactPanel uid={uid} onSelect={onSelect} /> : null}
        {tab === 'rename' ? <RenamePanel uid={uid} onSelect={onSelect} /> : null}
      </div>
    </section>
  );
}
