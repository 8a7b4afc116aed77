// Which project this page belongs to. The hub serves every project's pages under `/p/<slug>/` (and the
// default project's at `/` as well); the page's own address says which one, so a reload or a shared
// link lands in the same project. Fixed for the life of the page: switching project loads the other
// project's page (its API, its event stream, nothing cached from this one).

const match = /^\/p\/([a-z0-9-]{1,40})(?=\/|$)/.exec(globalThis.location?.pathname ?? '');

/** The slug in the address, or undefined on the default project's own URLs. */
export const PROJECT_SLUG: string | undefined = match?.[1];

/** `/p/<slug>` or '' : the prefix of this project's pages, REST routes and stream. */
export const PROJECT_BASE = PROJECT_SLUG === undefined ? '' : `/p/${PROJECT_SLUG}`;

/** The same page in another project (`null`: the default project's own URLs, at `/`). */
export function pageInProject(slug: string | null, page: string): string {
  return slug === null ? page : `/p/${slug}${page}`;
}
