// The time a search may hold the thread that answers everyone. SQLite runs a statement to its end once
// it starts, and better-sqlite3 exposes no interrupt, so the check is made from inside the statement: each
// search statement's WHERE calls `cos_within_budget()` once per candidate row, and that function throws
// when the search's deadline has passed, which ends the statement there. The caller answers `transient`
// with what to do. What one row costs is bounded elsewhere (fts-query.ts keeps no two terms that match
// the same words, and snippets are made in JS over bounded text), so the deadline is overrun by at most
// one row's work.
//
// For the check to run between rows, a guarded statement must not let FTS5 rank inside the virtual
// table (`ORDER BY rank` ranks every match before the first row comes out): it orders by a bm25()
// expression, which SQLite's own sorter evaluates row by row, after the WHERE clause.
import type { Db } from '../db/open.ts';
import { ToolError } from '../errors.ts';

const FUNCTION = 'cos_within_budget';
/** Put this in the WHERE clause of every search statement (after the MATCH). */
export const WITHIN_BUDGET = `${FUNCTION}()`;

export const DEFAULT_SEARCH_BUDGET_MS = 250;

class BudgetSpent extends Error {}

interface Clock {
  deadline: number;
}

const clocks = new WeakMap<Db, Clock>();

/**
 * Registers `cos_within_budget()` on a connection (once; before preparing statements that call it).
 * Outside a budgeted run it always passes, so a statement that uses it works anywhere.
 */
export function withBudgetFunction(db: Db): Db {
  if (clocks.has(db)) return db;
  const clock: Clock = { deadline: Number.POSITIVE_INFINITY };
  clocks.set(db, clock);
  db.function(FUNCTION, { deterministic: false }, () => {
    if (performance.now() > clock.deadline) throw new BudgetSpent();
    return 1;
  });
  return db;
}

/**
 * Runs one search's statements (synchronously) within `budgetMs`. A run inside another keeps the nearer
 * deadline. A search over budget throws `transient`, naming the corpus and what to change.
 */
export function withinBudget<T>(db: Db, budgetMs: number, corpus: string, run: () => T): T {
  const clock = clocks.get(withBudgetFunction(db))!;
  const outer = clock.deadline;
  clock.deadline = Math.min(outer, performance.now() + budgetMs);
  try {
    return run();
  } catch (err) {
    if (err instanceof BudgetSpent) {
      throw new ToolError(
        'transient',
        `this ${corpus} search needs more than its ${budgetMs} ms budget (COS_SEARCH_BUDGET_MS), so it was stopped to keep the hub answering; use fewer or longer words, or a filter`,
      );
    }
    throw err;
  } finally {
    clock.deadline = outer;
  }
}
