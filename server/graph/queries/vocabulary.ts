// The graph's node kinds and edge types as runtime lists (types.ts has them as types only): input
// schemas enumerate them and the doctor tells known kinds from leftovers. `satisfies` keeps both lists
// tied to the indexer's types.
import type { EdgeType, NodeKind } from '../types.ts';

export const NODE_KINDS = [
  'folder',
  'file',
  'doc_file',
  'heading',
  'module',
  'class',
  'interface',
  'type',
  'enum',
  'function',
  'method',
  'variable',
  'constant',
  'dependency',
  'external',
  'route',
  'mcp_tool',
  'cli_command',
  'event_handler',
] as const satisfies readonly NodeKind[];

export const EDGE_TYPES = [
  'contains',
  'imports',
  'calls',
  'inherits_from',
  'implements',
  'has_param_type',
  'returns_type',
  'constructs',
  'links_to',
  'cites_heading',
  'requires',
  'tests',
  'handles',
] as const satisfies readonly EdgeType[];

/** The node kinds of a repository's API surface (server/graph/extract/surface/). */
export const SURFACE_KINDS = [
  'route',
  'mcp_tool',
  'cli_command',
  'event_handler',
] as const satisfies readonly NodeKind[];
