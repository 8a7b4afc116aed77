// A minimal history router: the hub's SPA fallback serves index.html for every page path, so plain
// pushState URLs work on reload. Five pages and a few query parameters do not need a router library.
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';
import { PROJECT_BASE } from './project.ts';

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** The page's path inside its project: `/p/<slug>/board?x` reads as `/board?x`. */
const snapshot = () => window.location.pathname.slice(PROJECT_BASE.length) + window.location.search;

/** Goes to a page of this project (`to` as the app names it, `/board?…`). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  const href = `${PROJECT_BASE}${to}`;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

export interface Location {
  path: string;
  params: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, 'http://hub');
  return { path: url.pathname, params: url.searchParams };
}

/** Replace some query parameters of the current page (null removes one). */
export function withParams(location: Location, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(location.params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key);
    else params.set(key, value);
  }
  const query = params.toString();
  return query ? `${location.path}?${query}` : location.path;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser handle new-tab and download gestures.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) {
      return;
    }
    event.preventDefault();
    navigate(to);
  };
  return <a href={`${PROJECT_BASE}${to}`} onClick={handle} {...rest} />;
}
