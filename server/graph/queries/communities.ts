// Groups of code that belong together: Louvain communities of the map model (map-model.ts) read out a
// page at a time. A community is named after the folder most of its members are in and its most central
// symbol; its members come most important first; its links are the groups it has most edges with.
import type { Community, CommunityLevel, MapModel } from './map-model.ts';

/** Members and neighbours shown in a listing; the rest page through `community`. */
export const MEMBERS_SHOWN = 5;
export const LINKS_SHOWN = 5;

export interface SymbolRef {
  uid: string;
  label: string;
  kind: string;
}

export interface CommunityOut {
  id: number;
  name: string;
  folder: string;
  size: number;
  central: SymbolRef[];
  members: string[];
  links: { community: number; weight: number }[];
}

export const symbolRef = (m: MapModel, i: number): SymbolRef => ({
  uid: m.uids[i]!,
  label: m.labels[i]!,
  kind: m.kinds[i]!,
});

/** The groups each community has most edges with, heaviest first. */
export function linksOf(level: CommunityLevel): Map<number, { community: number; weight: number }[]> {
  const out = new Map<number, { community: number; weight: number }[]>();
  const add = (from: number, to: number, weight: number) => {
    let l = out.get(from);
    if (!l) {
      l = [];
      out.set(from, l);
    }
    if (l.length < LINKS_SHOWN) l.push({ community: to, weight });
  };
  // level.links is sorted heaviest first, so each list fills in weight order.
  for (const [a, b, w] of level.links) {
    add(a, b, w);
    add(b, a, w);
  }
  return out;
}

export function communityOut(
  m: MapModel,
  c: Community,
  links: Map<number, { community: number; weight: number }[]>,
): CommunityOut {
  return {
    id: c.id,
    name: c.name,
    folder: c.folder,
    size: c.members.length,
    central: c.central.map((i) => symbolRef(m, i)),
    members: c.members.slice(0, MEMBERS_SHOWN).map((i) => m.uids[i]!),
    links: links.get(c.id) ?? [],
  };
}
