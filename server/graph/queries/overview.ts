// The repository's map in one answer an agent can read at the start of a session: languages and size,
// the API surface and entry points (hooks below, filled by the graph's route extraction when it has
// some), the largest communities with their central symbols, the most depended-on symbols, and the
// tool calls that go deeper. `overviewText` renders it as plain text within a character budget (about
// four characters a token) for SessionStart.
import type { Db } from '../../db/open.ts';
import { linksOf, type SymbolRef, symbolRef } from './communities.ts';
import { cachedMapModel, derived, isCurrent, mapModel } from './map-cache.ts';
import type { MapModel } from './map-model.ts';
import { globalRanking } from './ranking.ts';
import { type GraphReader, graphReader } from './store.ts';
import { entryPoints, surfaceEntries } from './surface.ts';
import { isTestPath } from './text.ts';

export interface ApiRoute {
  method: string;
  path: string;
  handler: string | null;
  file: string | null;
}

export interface ApiSurfaceSummary {
  total: number;
  routes: ApiRoute[];
}

export interface EntryPoint {
  uid: string;
  label: string;
  kind: string;
  file: string | null;
}

export interface EntryPointsSummary {
  total: number;
  items: EntryPoint[];
}

export interface Overview {
  size: { files: number; nodes: number; edges: number };
  languages: { language: string; files: number; bytes: number }[];
  api_surface: ApiSurfaceSummary | null;
  entry_points: EntryPointsSummary | null;
  communities: {
    id: number;
    name: string;
    size: number;
    central: SymbolRef[];
    links: { community: number; weight: number }[];
  }[];
  communities_total: number;
  modularity: number;
  most_depended_on: (SymbolRef & { file: string | null; in_degree: number; score: number })[];
  next: string[];
}

/**
 * Routes and entry points the overview lists (the tools page the rest): the whole overview stays under
 * 2,000 tokens with a repository's groups and symbols beside them.
 */
const SURFACE_LISTED = 8;

/** The routes the graph knows (extract/surface/, queries/surface.ts), or null while it has none. */
export function apiSurfaceSummary(r: GraphReader): ApiSurfaceSummary | null {
  const routes = surfaceEntries(r.db).filter((e) => e.kind === 'route');
  if (routes.length === 0) return null;
  return {
    total: routes.length,
    routes: routes.slice(0, SURFACE_LISTED).map((e) => ({
      method: e.method ?? 'ANY',
      path: e.path ?? e.name,
      handler: e.handler?.label ?? null,
      file: e.file,
    })),
  };
}

/**
 * The entry points cos_graph_entrypoints ranks first (tests and unused exports aside: the map reads no
 * files), or null while the graph records none.
 */
export function entryPointsSummary(r: GraphReader): EntryPointsSummary | null {
  const { entries } = entryPoints(r.db, { isTest: isTestPath, exported: () => false });
  const items = entries.filter((e) => !e.is_test);
  if (items.length === 0) return null;
  return {
    total: items.length,
    items: items
      .slice(0, SURFACE_LISTED)
      .map((e) => ({ uid: e.uid, label: e.label, kind: e.kind, file: e.file })),
  };
}

export function buildOverview(
  r: GraphReader,
  m: MapModel,
  opts: { communities: number; symbols: number },
): Overview {
  const counts = r.s.counts.get() as { nodes: number; edges: number; files: number };
  const languages = (
    r.s.filesByLanguage.all() as { language: string | null; n: number; bytes: number | null }[]
  )
    .slice(0, 8)
    .map((x) => ({ language: x.language ?? 'other', files: x.n, bytes: x.bytes ?? 0 }));
  const level = m.levels.file.communities.length > 0 ? m.levels.file : m.levels.symbol;
  const links = linksOf(level);
  const ranked = globalRanking(m);
  const top: Overview['most_depended_on'] = [];
  for (const i of ranked.order) {
    if (m.kinds[i] === 'file') continue;
    top.push({
      ...symbolRef(m, i),
      file: m.files[i] ?? null,
      in_degree: m.inDegree[i]!,
      score: Math.round(ranked.score[i]! * ranked.live * 100) / 100,
    });
    if (top.length >= opts.symbols) break;
  }
  return {
    size: counts,
    languages,
    api_surface: apiSurfaceSummary(r),
    entry_points: entryPointsSummary(r),
    communities: level.communities.slice(0, opts.communities).map((c) => ({
      id: c.id,
      name: c.name,
      size: c.members.length,
      central: c.central.slice(0, 3).map((i) => symbolRef(m, i)),
      links: (links.get(c.id) ?? []).slice(0, 3),
    })),
    communities_total: level.communities.length,
    modularity: Math.round(level.modularity * 1000) / 1000,
    most_depended_on: top,
    next: [
      'cos_graph_communities {"community": <id>} for a group\'s members',
      'cos_graph_ranking {"query": "<topic>"} for what a topic leans on',
      'cos_graph_context {"node": "<uid>"} for one symbol',
      'cos_graph_impact {"node": "<uid>"} before changing it',
    ],
  };
}

/** Names and paths as long as a line can afford (generated code has labels of hundreds of characters). */
const short = (s: string) => (s.length > 80 ? `${s.slice(0, 79)}…` : s);

/**
 * The overview as plain text of at most `maxChars` characters: every section is cut to fit (communities
 * and symbols drop from the end), never a line in half.
 */
export function overviewText(o: Overview, maxChars: number): string {
  const head = [
    `Repository map (cos hub): ${o.size.files} files, ${o.size.nodes} symbols and files, ${o.size.edges} edges; ${o.languages
      .slice(0, 5)
      .map((l) => `${l.language} ${l.files}`)
      .join(', ')}.`,
  ];
  if (o.api_surface)
    head.push(
      `API surface: ${o.api_surface.total} routes (${o.api_surface.routes
        .slice(0, 5)
        .map((x) => `${x.method} ${x.path}`.trim())
        .join(
          ', ',
        )}${o.api_surface.total > 5 ? ', …' : ''}; cos_graph_api_surface has them all with their handlers).`,
    );
  if (o.entry_points)
    head.push(
      `Entry points: ${o.entry_points.items
        .slice(0, 5)
        .map((x) => x.label)
        .join(', ')}${o.entry_points.total > 5 ? `, … (${o.entry_points.total})` : ''}.`,
    );
  const tail = [
    'Deeper: cos_graph_overview, cos_graph_communities {"community": id}, cos_graph_ranking {"query": "…"}, cos_graph_context {"node": uid}.',
  ];
  const groups = o.communities.map(
    (c) => `- [${c.id}] ${short(c.name)} (${c.size}): ${c.central.map((s) => short(s.label)).join(', ')}`,
  );
  const symbols = o.most_depended_on.map(
    (s) => `- ${short(s.label)} (${s.kind}, ${short(s.file ?? 'external')})`,
  );
  const render = (g: number, s: number) =>
    [
      ...head,
      g > 0 ? `Groups of code that belong together (${o.communities_total} in all):` : '',
      ...groups.slice(0, g),
      s > 0 ? 'Most depended-on:' : '',
      ...symbols.slice(0, s),
      ...tail,
    ]
      .filter((l) => l !== '')
      .join('\n');
  let g = groups.length;
  let s = symbols.length;
  let text = render(g, s);
  // Drop from the longer list first until it fits.
  while (text.length > maxChars && (g > 0 || s > 0)) {
    if (g >= s && g > 0) g--;
    else s--;
    text = render(g, s);
  }
  return text.length > maxChars ? text.slice(0, text.lastIndexOf('\n', maxChars)) : text;
}

/** The SessionStart map: about 1,000 tokens. */
export const SESSION_MAP_CHARS = 4_000;
/** How long a SessionStart waits for a map not computed yet (hook scripts give up after 850 ms). */
export const SESSION_MAP_WAIT_MS = 400;

/** The session map of a model, rendered once per model. */
export function sessionMapOf(db: Db, m: MapModel): string {
  return derived(db, m, 'session-map', () =>
    // Room kept for the line usable() may add.
    overviewText(buildOverview(graphReader(db), m, { communities: 8, symbols: 10 }), SESSION_MAP_CHARS - 100),
  );
}

/**
 * The map a SessionStart offers the agent: the current generation's (computed now if it is not, waiting
 * at most `waitMs`); when that takes longer, the last one computed, if any, marked with its generation
 * (the computation goes on, and the next session gets the new one); null when there is none yet or the
 * graph is empty.
 */
export async function sessionMap(db: Db, waitMs = SESSION_MAP_WAIT_MS): Promise<string | null> {
  const cached = cachedMapModel(db);
  if (cached && isCurrent(db, cached)) return usable(db, cached);
  const computing = mapModel(db);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), waitMs);
    timer.unref();
  });
  try {
    const m = await Promise.race([computing, late]);
    if (m) return usable(db, m);
  } catch {
    // Fails open: a map that cannot be computed never holds a session up.
    return null;
  } finally {
    clearTimeout(timer);
  }
  computing.catch(() => {});
  return cached
    ? usable(db, cached, `(as of graph generation ${cached.generation}; a newer map is on its way)`)
    : null;
}

function usable(db: Db, m: MapModel, note?: string): string | null {
  if (m.uids.length === 0) return null;
  const text = sessionMapOf(db, m);
  return note ? `${text}\n${note}` : text;
}
