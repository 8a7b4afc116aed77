// Tool profiles: the smaller tool surfaces an MCP client can ask for on the URL (`/mcp?tools=core`).
// Every tool stays callable over REST and in the `all` profile (the default); a profile only decides
// what a session lists and may call, so an agent that does one kind of work pays for fewer schemas.
// A tool a profile leaves out answers not_found naming the profiles that have it.
import type { AnyTool } from './define.ts';

export const PROFILE_NAMES = ['core', 'board', 'graph', 'all'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];
export const DEFAULT_PROFILE: ProfileName = 'all';

export interface ToolProfile {
  name: ProfileName;
  /** One line for the Settings page and `cos serve`. */
  summary: string;
  has(tool: Pick<AnyTool, 'name' | 'module'>): boolean;
}

/** The everyday loop of a coding agent: find, read the board, claim, look before changing, remember. */
export const CORE_TOOLS: readonly string[] = [
  'cos_health',
  'cos_search_all',
  'cos_task_board',
  'cos_task_show',
  'cos_task_claim_next',
  'cos_task_move',
  'cos_work_log_append',
  'cos_graph_context',
  'cos_graph_references',
  'cos_graph_impact',
  'cos_graph_detect_changes',
  'cos_doc_search',
  'cos_search',
  'cos_observation_record',
];

/** Tools every focused profile keeps: what is wrong with the hub, and one search over everything. */
const ALWAYS: readonly string[] = ['cos_health', 'cos_search_all'];

function named(names: readonly string[]): (tool: Pick<AnyTool, 'name'>) => boolean {
  const set = new Set(names);
  return (tool) => set.has(tool.name);
}

const inCore = named(CORE_TOOLS);
const always = named(ALWAYS);
const boardExtras = named([...ALWAYS, 'cos_presence_query']);

export const PROFILES: Readonly<Record<ProfileName, ToolProfile>> = Object.freeze({
  core: {
    name: 'core',
    summary: 'the everyday loop: search, the board, claiming and moving tasks, context and impact, memory',
    has: inCore,
  },
  board: {
    name: 'board',
    summary: 'every task-board tool, and who is connected',
    has: (tool) => tool.module === 'tasks' || boardExtras(tool),
  },
  graph: {
    name: 'graph',
    summary: 'every code-graph tool',
    has: (tool) => tool.module === 'graph' || always(tool),
  },
  all: { name: 'all', summary: 'every tool of every enabled module', has: () => true },
});

/** The profile a `tools` query value names, or undefined when it names none. */
export function profileNamed(value: string | undefined): ToolProfile | undefined {
  if (value === undefined || value === '') return PROFILES[DEFAULT_PROFILE];
  return (PROFILE_NAMES as readonly string[]).includes(value) ? PROFILES[value as ProfileName] : undefined;
}

/** The profiles that list a tool, smallest first (`all` last). */
export function profilesWith(tool: Pick<AnyTool, 'name' | 'module'>): ProfileName[] {
  return PROFILE_NAMES.filter((name) => PROFILES[name].has(tool));
}

/** The MCP URL of a profile on a hub whose MCP endpoint is `mcpUrl` (the default profile needs no query). */
export function profileUrl(mcpUrl: string, name: ProfileName): string {
  return name === DEFAULT_PROFILE ? mcpUrl : `${mcpUrl}?tools=${name}`;
}
