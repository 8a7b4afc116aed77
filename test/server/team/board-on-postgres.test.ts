// The board's tests again, every board in a team on a real PostgreSQL (test/server/board/helpers.ts reads
// COS_TEST_BOARD_STORE): the same claims, moves, caps, gates, versions and reconciliation through the
// team's records first. Files whose tests do not open a board (parsing, the file writer) run once.
process.env.COS_TEST_BOARD_STORE = 'postgres';

export {};

await import('../board/commits.test.ts');
await import('../board/concurrency.test.ts');
await import('../board/field-text.test.ts');
await import('../board/flow.test.ts');
await import('../board/foreign.test.ts');
await import('../board/hub.test.ts');
await import('../board/padded-keys.test.ts');
await import('../board/quality-gates.test.ts');
await import('../board/reconcile.test.ts');
await import('../board/search.test.ts');
await import('../board/tools.test.ts');
await import('../board/transitions.test.ts');
await import('../board/versions.test.ts');
await import('../board/wip.test.ts');
