// A small data hook: load on mount and when `key` changes, abort the request a newer one replaces, and
// expose reload() for retry buttons. The app's needs are simple enough not to warrant a query library.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiError, Outcome } from './api.ts';

export type QueryState<T> =
  | { status: 'loading'; value?: T }
  | { status: 'error'; error: ApiError; value?: T }
  | { status: 'ok'; value: T };

export interface Query<T> {
  state: QueryState<T>;
  reload: () => void;
  /** Change the loaded value locally (an optimistic update, or an event from the live stream). */
  set: (update: (value: T) => T) => void;
}

export function useQuery<T>(key: string, load: (signal: AbortSignal) => Promise<Outcome<T>>): Query<T> {
  const [state, setState] = useState<QueryState<T>>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  // biome-ignore lint/correctness/useExhaustiveDependencies: key and generation are the triggers by design
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ status: 'loading', ...(s.value !== undefined ? { value: s.value } : {}) }));
    loadRef.current(controller.signal).then(
      (outcome) => {
        if (controller.signal.aborted) return;
        setState((s) =>
          outcome.ok
            ? { status: 'ok', value: outcome.value }
            : { status: 'error', error: outcome.error, ...(s.value !== undefined ? { value: s.value } : {}) },
        );
      },
      () => {
        // Aborted: a newer load owns the state.
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const set = useCallback((update: (value: T) => T) => {
    setState((s) => (s.value === undefined ? s : { ...s, value: update(s.value) }));
  }, []);
  return { state, reload, set };
}
