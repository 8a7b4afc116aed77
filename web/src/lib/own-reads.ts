// The hub records the REST calls this web page makes to draw itself (a page's first load, the Activity
// page's live reloads), besides the agents' calls; the reads it repeats only to keep itself current go
// in the background (BACKGROUND in api.ts) and are not recorded at all. Reloading on those that are
// would feed back into itself, and listing them buries the agents' calls; so the pages that list calls
// (Activity, the home page's activity of every project) leave them out, unless asked.
import { field } from './stream.ts';

const OWN_READS = new Set([
  'cos_observability_timeline',
  'cos_presence_query',
  'cos_presence_now',
  'cos_sessions_active',
  'cos_metrics',
  'cos_log_query',
  'cos_stream_history',
  'cos_module_list',
  'cos_health',
  'cos_hub_summary',
  'cos_agent_activity',
  'cos_task_board',
  'cos_hook_settings',
  'cos_project_list',
]);

/** A tool call's details (a timeline entry's or a `tool-called` event's) name one of the page's own reads. */
export function isOwnRead(data: unknown): boolean {
  const tool = field(data, 'tool', 'string');
  return field(data, 'transport', 'string') === 'rest' && tool !== undefined && OWN_READS.has(tool);
}
