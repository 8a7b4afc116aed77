import { call, hubApi, projectApi } from '../../lib/api.ts';
import type { paths } from '../../lib/api-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type ProjectInfo = Json<paths['/api/projects']['get']['responses'][200]>['data']['projects'][number];
type TimelinePage = Json<paths['/api/observability/timeline']['get']['responses'][200]>['data'];
export type ProjectEntry = TimelinePage['entries'][number] & { project: string };

/**
 * Every project the hub serves (the hub's own route, whichever project this page is in). The page's own
 * read, polled: not recorded as a call, and no project counts it as use.
 */
export function listProjects(signal?: AbortSignal) {
  return call(hubApi.GET('/api/projects', { signal }));
}

/**
 * The newest activity of every project, merged newest first: each project's own timeline, read through
 * its own routes (`/p/<slug>/api/observability/timeline`); like every read of the page, neither recorded
 * nor keeping an idle project awake (api.ts). A project whose timeline cannot be read is named in
 * `failed` rather than hiding the others.
 */
export async function crossProjectActivity(
  projects: readonly ProjectInfo[],
  signal?: AbortSignal,
): Promise<{ entries: ProjectEntry[]; failed: string[] }> {
  const pages = await Promise.all(
    projects.map(async (p) => {
      const outcome = await call(
        projectApi(p.slug).GET('/api/observability/timeline', {
          params: { query: { limit: 25 } },
          signal,
        }),
      );
      return { slug: p.slug, outcome };
    }),
  );
  const entries: ProjectEntry[] = [];
  const failed: string[] = [];
  for (const { slug, outcome } of pages) {
    if (!outcome.ok) failed.push(slug);
    else for (const e of outcome.value.data.entries) entries.push({ ...e, project: slug });
  }
  entries.sort((a, b) => b.at - a.at);
  return { entries: entries.slice(0, 50), failed };
}
