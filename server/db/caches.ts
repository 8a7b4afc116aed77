// What is kept in memory beside a database connection and can be built again from it: prepared
// statements, answers kept per graph generation. Each such cache is made here, so a project that nobody
// has used for a while (projects/idle.ts) can drop all of its caches at once; the next call rebuilds
// whatever it needs.
import type { Db } from './open.ts';

const caches = new Set<WeakMap<Db, unknown>>();

/** A WeakMap keyed by connection whose entries releaseDbCaches() drops. Make it once, at module level. */
export function dbCache<V>(): WeakMap<Db, V> {
  const cache = new WeakMap<Db, V>();
  caches.add(cache as WeakMap<Db, unknown>);
  return cache;
}

/**
 * Drops every cache kept for `db`, and has SQLite free what it can of the connection's page cache
 * (`PRAGMA shrink_memory`).
 */
export function releaseDbCaches(db: Db): void {
  for (const cache of caches) cache.delete(db);
  if (db.open) db.pragma('shrink_memory');
}
