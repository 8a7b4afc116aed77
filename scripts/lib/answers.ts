// What an agent pays for per answer: a fixed corpus (a git repository with code, docs, task files, memory
// and an evidence bundle) and, over it, one default call of every MCP tool and a fixed set of agent
// questions. Shared by the budget test (test/server/mcp/answers.test.ts, on the small corpus) and
// `npm run bench:answers` (on the larger one). Everything is written the way other tools and people
// write it: the fixtures' hand-written task files, real packages' sources and docs.
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTaskFiles } from '../../test/fixtures/board/make-tasks.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures');

export type CorpusSize = 'test' | 'bench';

export interface CorpusPlan {
  /** What the code graph questions ask about (a function of the corpus) and a second node for path. */
  symbol: string;
  other: string;
  /** Words the search questions look for. */
  words: { code: string; docs: string; memory: string; tasks: string };
  /** The file the working tree changes after the commit (for detect_changes). */
  changed: string;
}

/** A board mid-project: most work waiting or done, one task in progress (under every WIP cap). */
const boardStatus = (i: number) =>
  i === 5
    ? 'in_progress'
    : (['icebox', 'testing', 'complete', 'blocked', 'icebox', 'complete'] as const)[i % 6]!;

function git(repo: string, ...args: string[]): void {
  execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
}

/**
 * Writes the corpus into `repo` (which must exist and be empty): sources, docs and task files, committed
 * to git, then one file changed in the working tree. Memory and the evidence bundle need a running hub:
 * `seedCalls` records them.
 */
export function writeCorpus(repo: string, size: CorpusSize): CorpusPlan {
  const tasks = join(repo, 'docs', 'tasks');
  mkdirSync(tasks, { recursive: true });
  cpSync(join(FIXTURES, 'docs'), join(repo, 'docs'), {
    recursive: true,
    filter: (src) => !src.endsWith('.golden.json'),
  });
  for (const name of ['TASK-7-hand-written.md', 'TASK-8-crlf.md'])
    cpSync(join(FIXTURES, 'board', name), join(tasks, name));
  let plan: CorpusPlan;
  if (size === 'test') {
    cpSync(join(FIXTURES, 'graph', 'ts'), join(repo, 'web'), { recursive: true });
    cpSync(join(FIXTURES, 'graph', 'py'), join(repo, 'py'), { recursive: true });
    makeTaskFiles(tasks, 30, boardStatus, 10);
    plan = {
      symbol: 'add',
      other: 'main',
      words: { code: 'format', docs: 'sqlite', memory: 'budget', tasks: 'graph' },
      changed: 'web/src/lib/math.ts',
    };
  } else {
    // Fastify as the lock file pins it: a real JavaScript code base with its own Markdown docs.
    const fastify = join(ROOT, 'node_modules', 'fastify');
    for (const part of ['lib', 'types', 'docs', 'fastify.js', 'fastify.d.ts', 'README.md'])
      cpSync(join(fastify, part), join(repo, 'fastify', part), { recursive: true });
    makeTaskFiles(tasks, 300, boardStatus, 10);
    plan = {
      symbol: 'fastify',
      other: 'buildRouting',
      words: { code: 'reply', docs: 'hooks', memory: 'budget', tasks: 'graph' },
      changed: 'fastify/lib/reply.js',
    };
  }
  git(repo, 'init', '-q');
  git(repo, 'config', 'user.email', 'bench@example.invalid');
  git(repo, 'config', 'user.name', 'bench');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'corpus');
  // A commit that names a task, as agents write them: cos_task_changes has a change to show.
  appendFileSync(join(repo, plan.changed), '\n// tightened for the task\n');
  git(repo, 'commit', '-qam', `Tighten ${plan.symbol} (${FIRST_TASK})`);
  appendFileSync(join(repo, plan.changed), '\n// changed in the working tree\n');
  return plan;
}

export interface Call {
  tool: string;
  args: Record<string, unknown>;
}

const TOPICS = ['budget', 'envelope', 'sqlite', 'graph', 'watcher', 'cursor', 'agent', 'search', 'board'];

/** Memory and an evidence bundle, recorded through the tools as agents record them. */
export function seedCalls(size: CorpusSize): Call[] {
  const count = size === 'test' ? 12 : 200;
  const calls: Call[] = [];
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    calls.push({
      tool: 'cos_observation_record',
      args: {
        title: `The ${topic} rule number ${i}`,
        narrative: `While working on the ${topic}, task ${i} found that the ${topic} must be checked before every write; otherwise the answer drifts. ${'Context and the reasons behind it. '.repeat(1 + (i % 5))}`,
        facts: [`${topic} is checked first`, `seen in run ${i}`],
        concepts: [topic, 'hub'],
        type: (['pattern', 'decision', 'pitfall', 'fact', 'preference'] as const)[i % 5],
        files: [`src/${topic}.ts`],
        session_id: `seed-${i % 3}`,
      },
    });
  }
  calls.push({
    tool: 'cos_supervise_record_output',
    args: {
      session_id: 'answers-run',
      role: 'researcher',
      status: 'ok',
      latency_ms: 1200,
      output: {
        summary: 'What the corpus holds',
        findings: ['code, docs, tasks and memory'],
        sources: [{ ref: 'docs/guide.md' }],
      },
    },
  });
  return calls;
}

/** Ids the default calls need, read from the seeded hub. */
export interface CorpusIds {
  task: string;
  observation: number;
  /** A second observation, for cos_forget. */
  doomed: number;
  /** A live agent to hand the task to (the caller's own MCP session), for cos_task_handoff. */
  agent: string;
  /** A message to that agent, for cos_message_ack. */
  message: string;
}

/**
 * One call of every MCP tool with its default arguments (only what the tool requires), in an order that
 * keeps each one meaningful (a task is shown before it is moved, forgotten last). A tool missing here
 * takes `{}`; the budget test fails for a tool with required arguments that is missing.
 */
export function defaultCalls(plan: CorpusPlan, ids: CorpusIds): Call[] {
  const node = plan.symbol;
  return [
    { tool: 'cos_health', args: {} },
    { tool: 'cos_module_list', args: {} },
    { tool: 'cos_module_set', args: { id: 'supervise', enabled: true } },
    { tool: 'cos_search_all', args: { query: plan.words.code } },
    { tool: 'cos_task_board', args: {} },
    { tool: 'cos_task_show', args: { id: ids.task } },
    { tool: 'cos_task_search', args: { query: plan.words.tasks } },
    { tool: 'cos_task_history', args: { id: ids.task } },
    { tool: 'cos_task_changes', args: { id: ids.task } },
    { tool: 'cos_task_daily', args: {} },
    { tool: 'cos_task_retro', args: {} },
    { tool: 'cos_task_dependencies', args: { id: ids.task } },
    { tool: 'cos_task_dependents', args: { id: ids.task } },
    { tool: 'cos_task_ready', args: {} },
    { tool: 'cos_task_wip_check', args: {} },
    { tool: 'cos_task_board_config', args: {} },
    { tool: 'cos_cost_report', args: { group_by: 'task' } },
    { tool: 'cos_task_create', args: { title: 'Measure what every answer costs' } },
    { tool: 'cos_task_edit', args: { id: ids.task, priority: 'P1' } },
    { tool: 'cos_work_log_append', args: { id: ids.task, text: 'Measured the answers.' } },
    { tool: 'cos_task_move', args: { id: ids.task, to: 'in_progress', agent_session: 'answers-agent' } },
    { tool: 'cos_task_claim_next', args: { agent_session: 'answers-agent' } },
    {
      tool: 'cos_task_handoff',
      args: { id: ids.task, to: ids.agent, note: 'Measure the rest.', agent_session: 'answers-agent' },
    },
    {
      tool: 'cos_files_reserve',
      args: { agent_session: 'answers-agent', paths: ['docs/guide.md'], reason: 'measuring the answers' },
    },
    { tool: 'cos_files_reservations', args: {} },
    { tool: 'cos_message_send', args: { to: ids.agent, body: 'The answers are measured.' } },
    { tool: 'cos_inbox', args: {} },
    { tool: 'cos_message_ack', args: { ids: [ids.message] } },
    { tool: 'cos_files_release', args: { agent_session: 'answers-agent', paths: ['docs/guide.md'] } },
    { tool: 'cos_search', args: { query: plan.words.memory } },
    { tool: 'cos_timeline', args: {} },
    { tool: 'cos_details', args: { id: ids.observation } },
    { tool: 'cos_observation_record', args: { title: 'Answers are measured', type: 'fact' } },
    { tool: 'cos_observation_update', args: { id: ids.observation, confidence: 0.9 } },
    { tool: 'cos_forget', args: { id: ids.doomed, reason: 'superseded' } },
    { tool: 'cos_forget_log', args: {} },
    { tool: 'cos_doc_search', args: { query: plan.words.docs } },
    { tool: 'cos_doc_header', args: { path: 'docs/guide.md' } },
    { tool: 'cos_doc_headers_by', args: { key: 'status' } },
    { tool: 'cos_supervise_roles', args: {} },
    { tool: 'cos_supervise_bundle', args: { session_id: 'answers-run' } },
    { tool: 'cos_supervise_role_outputs', args: { role: 'researcher' } },
    {
      tool: 'cos_supervise_record_output',
      args: { session_id: 'answers-run', role: 'tester', status: 'fail', latency_ms: 5, output: {} },
    },
    { tool: 'cos_graph_search', args: { query: node } },
    { tool: 'cos_graph_resolve', args: { name: node } },
    { tool: 'cos_graph_context', args: { node } },
    { tool: 'cos_graph_references', args: { node } },
    { tool: 'cos_graph_impact', args: { node } },
    { tool: 'cos_graph_path', args: { source: plan.other, target: node, directed: false } },
    { tool: 'cos_graph_trace', args: { entry: plan.other } },
    { tool: 'cos_graph_similar', args: { node } },
    { tool: 'cos_graph_rename_plan', args: { node, new_name: `${node}Renamed` } },
    { tool: 'cos_graph_detect_changes', args: {} },
    { tool: 'cos_graph_export', args: {} },
    { tool: 'cos_graph_cycles', args: {} },
    { tool: 'cos_graph_dead_code', args: {} },
    { tool: 'cos_graph_api_surface', args: {} },
    { tool: 'cos_graph_entrypoints', args: {} },
    { tool: 'cos_graph_stats', args: {} },
    { tool: 'cos_graph_doctor', args: {} },
    { tool: 'cos_graph_reindex', args: {} },
    { tool: 'cos_metrics', args: {} },
    { tool: 'cos_log_query', args: {} },
    { tool: 'cos_presence_query', args: {} },
  ];
}

export interface Question extends Call {
  /** What the agent asks, in its words. */
  ask: string;
  /** Graph answers have the tighter target (median ≤ 2,000 tokens). */
  graph: boolean;
}

/** The fixed agent questions the benchmark prices, one per kind of work an agent does here. */
export function agentQuestions(plan: CorpusPlan, ids: CorpusIds): Question[] {
  const node = plan.symbol;
  return [
    { ask: `what is ${node}?`, tool: 'cos_graph_context', args: { node }, graph: true },
    { ask: `what breaks if I change ${node}?`, tool: 'cos_graph_impact', args: { node }, graph: true },
    { ask: `who uses ${node}?`, tool: 'cos_graph_references', args: { node }, graph: true },
    {
      ask: `find "${plan.words.code}" in the code`,
      tool: 'cos_graph_search',
      args: { query: plan.words.code },
      graph: true,
    },
    { ask: 'what does my change touch?', tool: 'cos_graph_detect_changes', args: {}, graph: true },
    { ask: 'show me the repository', tool: 'cos_graph_export', args: {}, graph: true },
    { ask: 'what is on the board?', tool: 'cos_task_board', args: {}, graph: false },
    { ask: `show ${ids.task}`, tool: 'cos_task_show', args: { id: ids.task }, graph: false },
    {
      ask: `docs about "${plan.words.docs}"`,
      tool: 'cos_doc_search',
      args: { query: plan.words.docs },
      graph: false,
    },
    {
      ask: `what do we know about "${plan.words.memory}"?`,
      tool: 'cos_search',
      args: { query: plan.words.memory },
      graph: false,
    },
    {
      ask: `"${plan.words.code}" anywhere`,
      tool: 'cos_search_all',
      args: { query: plan.words.code },
      graph: false,
    },
  ];
}

/** The first task the corpus generates: the one the default calls show, edit and move. */
export const FIRST_TASK = 'TASK-10';
