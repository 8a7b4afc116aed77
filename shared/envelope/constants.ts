// The envelope's fixed vocabulary: budgets, trimmable keys, error categories and layers. Ported from the
// contract (../shared/seed/mcp-error-envelope.txt); names and values are part of the wire contract.

/** Agent-context budget: an agent's window, not a browser, is what this protects. */
export const TOKEN_BUDGET_CHARS = 32_000;

/** OOM safety net for `{nodes, edges}` graph exports; a normal export passes untouched. */
export const GRAPH_SUBGRAPH_BUDGET_CHARS = 5_000_000;

/**
 * Top-level payload keys whose list may be tail-trimmed. Order matters only for ties: a sibling `count`
 * follows the first of these lists whose original length it equals.
 */
export const TRIMMABLE_LIST_KEYS = [
  'results',
  'neighbours',
  'references',
  'edges',
  'nodes',
  'processes',
  'call_sites',
  'import_sites',
  'doc_references',
  'test_references',
  'string_literals',
  'external_targets',
  'branches',
  'steps',
  'http_routes',
  'mcp_tools',
  'grpc_endpoints',
  'event_handlers',
  'websocket',
  'nodes_top',
  'samples',
  'rows',
  'entries',
  'cycles',
  'untested',
  'dead',
] as const;
export type TrimmableListKey = (typeof TRIMMABLE_LIST_KEYS)[number];

/** Strings shorter than this are load-bearing scalars (`status`, `risk_level`…): cutting them saves nothing. */
export const SCALAR_TRIM_FLOOR_CHARS = 200;

/** Ends every string the safety net cut, so a reader sees the cut in the value itself. */
export const TRUNCATION_SUFFIX = '…[truncated]';

export const ERROR_CATEGORIES = [
  'transient',
  'validation',
  'permission',
  'not_found',
  'unavailable',
  'internal',
  'module_disabled',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** Only a retry (after waiting, or after installing the missing dependency) can fix these. */
export const RETRYABLE_DEFAULTS: Readonly<Record<ErrorCategory, boolean>> = Object.freeze({
  transient: true,
  validation: false,
  permission: false,
  not_found: false,
  unavailable: true,
  internal: false,
  module_disabled: false,
});

/**
 * Categories only the HTTP edge emits, before any tool runs: a missing or wrong bearer token (401).
 * `fail()` never produces it, but ErrorBodySchema accepts it so one error schema describes every REST
 * error response. (A refused burst is `transient` with status 429 and Retry-After: retrying later works.)
 */
export const HTTP_ONLY_ERROR_CATEGORIES = ['unauthorized'] as const;
export type HttpOnlyErrorCategory = (typeof HTTP_ONLY_ERROR_CATEGORIES)[number];

/**
 * `meta.resolved_from`: how a tool turned the node argument it was given into a graph node (the contract's
 * W7.2 vocabulary, extended). `direct`: the exact uid. `path_prefix`: a repository path (or `path::name`)
 * made a file, doc or folder uid. `exact_unique`: a name that is, letter for letter, the label or the
 * qualified name of one repository symbol and of no other (external stubs aside): no need to verify it.
 * `fuzzy_fts5`: the full-text fallback (a case-insensitive or partial match, or a lone fuzzy hit): the
 * answer may be about another symbol than the one meant, so verify it. An ambiguous name answers the
 * candidates with the value of the step that found them.
 */
export const RESOLVED_FROM = ['direct', 'path_prefix', 'exact_unique', 'fuzzy_fts5'] as const;
export type ResolvedFrom = (typeof RESOLVED_FROM)[number];

/** Which retrieval layer answered; `kernel` is the hub's own always-on module (health, settings, modules). */
export const LAYERS = [
  'memory',
  'docs',
  'tasks',
  'metrics',
  'routing',
  'graph',
  'health',
  'learning',
  'audit',
  'kernel',
] as const;
export type Layer = (typeof LAYERS)[number];
