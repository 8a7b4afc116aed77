// The page table. Every page is its own chunk so the first page loads only what it shows; the graph
// page in particular pulls in sigma and graphology, which no other page needs.
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

export interface PageRoute {
  path: string;
  label: string;
  /** Single-key shortcut (with Alt) shown in the nav's title. */
  key: string;
  component: LazyExoticComponent<ComponentType>;
}

export const ROUTES: PageRoute[] = [
  {
    path: '/board',
    label: 'Board',
    key: 'b',
    component: lazy(() => import('../features/board/board-page.tsx')),
  },
  {
    path: '/graph',
    label: 'Graph',
    key: 'g',
    component: lazy(() => import('../features/graph/graph-page.tsx')),
  },
  {
    path: '/map',
    label: 'Map',
    key: 'm',
    component: lazy(() => import('../features/map/map-page.tsx')),
  },
  {
    path: '/search',
    label: 'Search',
    key: 's',
    component: lazy(() => import('../features/search/search-page.tsx')),
  },
  {
    path: '/activity',
    label: 'Activity',
    key: 'a',
    component: lazy(() => import('../features/activity/activity-page.tsx')),
  },
  {
    path: '/review',
    label: 'Review',
    key: 'r',
    component: lazy(() => import('../features/review/review-page.tsx')),
  },
  {
    path: '/flow',
    label: 'Flow',
    key: 'f',
    component: lazy(() => import('../features/flow/flow-page.tsx')),
  },
  {
    path: '/settings',
    label: 'Health & Settings',
    key: 'h',
    component: lazy(() => import('../features/settings/settings-page.tsx')),
  },
];

export const HOME = '/board';

export function routeFor(path: string): PageRoute | undefined {
  return ROUTES.find((r) => path === r.path || path.startsWith(`${r.path}/`));
}
