// One layer's results: its own loading, error (a disabled module offers Enable right here), the cut
// notice, and "more" from the layer's next_offset.
import { type ReactNode, useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { TruncatedNotice } from '../../components/truncated-notice.tsx';
import type { Meta, ModuleId, Outcome } from '../../lib/api.ts';
import { onModulesChanged } from '../../lib/modules.ts';
import { useQuery } from '../../lib/use-query.ts';

interface Page<R> {
  data: { results: R[] };
  meta: Meta;
}

interface Props<R> {
  title: string;
  module: ModuleId;
  query: string;
  search: (query: string, offset: number, signal?: AbortSignal) => Promise<Outcome<Page<R>>>;
  keyOf: (result: R) => string;
  render: (result: R) => ReactNode;
}

export function ResultGroup<R>({ title, module, query, search, keyOf, render }: Props<R>) {
  const first = useQuery(`search:${module}:${query}`, (signal) => search(query, 0, signal));
  useEffect(() => onModulesChanged(first.reload), [first.reload]);
  const [more, setMore] = useState<{ results: R[]; meta: Meta } | undefined>();
  const [busy, setBusy] = useState(false);
  // A new query starts from its first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the query changes
  useEffect(() => setMore(undefined), [query]);

  const base = first.state.value;
  const results = [...(base?.data.results ?? []), ...(more?.results ?? [])];
  const meta = more?.meta ?? base?.meta;
  const nextOffset = meta?.next_offset;
  const loadMore = async () => {
    if (nextOffset === undefined || nextOffset === null) return;
    setBusy(true);
    const outcome = await search(query, nextOffset);
    setBusy(false);
    if (outcome.ok)
      setMore((m) => ({
        results: [...(m?.results ?? []), ...outcome.value.data.results],
        meta: outcome.value.meta,
      }));
  };
  const headingId = `group-${module}`;
  return (
    <section className="card result-group" aria-labelledby={headingId} data-layer={module}>
      <h2 id={headingId}>
        {title} <span className="muted">{base ? `(${results.length}${nextOffset ? '+' : ''})` : ''}</span>
      </h2>
      {first.state.status === 'loading' ? <p className="muted">Searching…</p> : null}
      {first.state.status === 'error' ? (
        <ErrorNotice error={first.state.error} onRetry={first.reload} module={module} />
      ) : null}
      {base && results.length === 0 ? <p className="muted">No match.</p> : null}
      <ul className="results">
        {results.map((r) => (
          <li key={keyOf(r)}>{render(r)}</li>
        ))}
      </ul>
      <TruncatedNotice meta={meta} onMore={loadMore} busy={busy} />
    </section>
  );
}
