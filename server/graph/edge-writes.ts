// Resolution's writes on an extraction helper's own connections (extract-worker.ts): one connection
// per database an indexer names, opened on its first batch, as the indexer's thread opens its own
// (joining the hub's file, never creating or migrating it).
import { type Db, openDatabase } from '../db/open.ts';
import type { HelperDb } from './pool.ts';
import { type EdgeBatch, EdgeWriter, forBulkWrites } from './store.ts';

export interface EdgeWrites {
  write(db: HelperDb, batch: EdgeBatch): void;
  close(): void;
}

/** The writers of one indexer's port; close() when the port goes. */
export function edgeWrites(): EdgeWrites {
  const open = new Map<string, { db: Db; writer: EdgeWriter }>();
  return {
    write(target, batch) {
      let w = open.get(target.path);
      if (!w) {
        const db = openDatabase(target.path, { migrate: false, sameFileAs: target.identity });
        forBulkWrites(db);
        w = { db, writer: new EdgeWriter(db) };
        open.set(target.path, w);
      }
      w.writer.write(batch);
    },
    close() {
      for (const { db } of open.values()) db.close();
      open.clear();
    },
  };
}
