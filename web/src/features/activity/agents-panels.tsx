// The agents as their hooks and MCP sessions report them: who is working on what (the board's
// in-progress column with each claimant's presence), every agent with what it is doing now, one
// agent's timeline and the files it touched, and the edit conflicts the hub warned about or refused. In a
// team (COS_DATABASE_URL) every machine's agents are here, each with its machine and branch, and the
// page can show one machine (`?machine=`).
import { useMemo, useState } from 'react';
import type { CostGroup } from '../../components/costs/api.ts';
import { CostAmount } from '../../components/costs/cost-views.tsx';
import { useCostMap } from '../../components/costs/use-costs.ts';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Link, navigate, useLocation, withParams } from '../../lib/router.tsx';
import { throttle, useHubEvents } from '../../lib/stream.ts';
import { useQuery } from '../../lib/use-query.ts';
import {
  type Agent,
  agentActivity,
  type HookEvent,
  inProgress,
  type Lifecycle,
  presenceAgents,
} from './api.ts';

const LIFECYCLE: Record<Lifecycle, string> = {
  active: '● active',
  present: '◐ present',
  idle: '○ idle',
  ended: '✕ ended',
};

const KIND_LABEL: Record<string, string> = {
  session_start: 'start',
  session_end: 'end',
  prompt: 'prompt',
  edit: 'edit',
  command: 'cmd',
  read: 'read',
  search: 'search',
  web: 'web',
  mcp: 'mcp',
  tool: 'tool',
  stop: 'stop',
  subagent: 'subagent',
  notification: 'note',
  compact: 'compact',
  permission: 'perm',
  conflict: 'conflict',
  refresh: 'refresh',
  claim: 'claim',
  reservation: 'reserve',
  other: 'other',
  unknown: '?',
};

export function time(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

export function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

export function agentLabel(a: Pick<Agent, 'client' | 'id'>): string {
  return `${a.client ?? 'client not named yet'} · ${shortId(a.id)}`;
}

/** The machines agents report from, and whether the hub is in a team (a branch is known only there). */
export function teamOf(agents: readonly Agent[]): { machines: string[]; team: boolean } {
  const machines = [...new Set(agents.map((a) => a.machine))].sort();
  return { machines, team: machines.length > 1 || agents.some((a) => a.branch !== null) };
}

/** Where an agent works, in a team: `machine-a · feature/x`. */
export function whereLabel(a: Pick<Agent, 'machine' | 'branch'>): string {
  return a.branch ? `${a.machine} · ${a.branch}` : a.machine;
}

/** The page's machine filter, kept in the address (`?machine=`): null shows every machine. */
export function useMachineFilter(): [string | null, (machine: string | null) => void] {
  const location = useLocation();
  const machine = location.params.get('machine');
  return [machine, (m) => navigate(withParams(location, { machine: m }), { replace: true })];
}

/** Reloads a query on the stream's agent and board events, at most every `ms`. */
function useLive(reload: () => void, ms: number): void {
  const throttled = useMemo(() => throttle(reload, ms), [reload, ms]);
  useHubEvents(['agent-event', 'agent-conflict', 'presence-updated', 'task-updated'], throttled);
}

function useAgents() {
  const query = useQuery('agents', (signal) => presenceAgents(signal));
  useLive(query.reload, 700);
  return query;
}

export function WorkingOn({ machine }: { machine: string | null }) {
  const agents = useAgents();
  const tasks = useQuery('in-progress', (signal) => inProgress(signal));
  useLive(tasks.reload, 1000);
  const everyone = agents.state.value?.data.entries ?? [];
  const { team } = teamOf(everyone);
  const all = machine ? everyone.filter((a) => a.machine === machine) : everyone;
  const holder = (session: string | undefined) =>
    session
      ? everyone.find(
          (a) => a.agent_session === session || a.id === session || a.mcp_sessions.includes(session),
        )
      : undefined;
  // A task's machine: its holder's, or the team record's when this hub has not heard of the holder.
  const machineOf = (card: { agent_session?: string; machine?: string }) =>
    holder(card.agent_session)?.machine ?? card.machine ?? null;
  const cards = (tasks.state.value?.data.columns.find((c) => c.status === 'in_progress')?.cards ?? []).filter(
    (c) => !machine || machineOf(c) === machine,
  );
  const busy = new Set(cards.map((c) => holder(c.agent_session)?.id).filter(Boolean));
  const free = all.filter((a) => a.lifecycle !== 'ended' && !busy.has(a.id));
  return (
    <section className="card wide" aria-labelledby="working-title" data-testid="working-on">
      <h2 id="working-title">Who is working on what</h2>
      {tasks.state.status === 'error' ? (
        <ErrorNotice error={tasks.state.error} onRetry={tasks.reload} />
      ) : null}
      {cards.length === 0 && tasks.state.value ? <p className="muted">No task is in progress.</p> : null}
      <ul className="working-list">
        {cards.map((card) => {
          const a = holder(card.agent_session);
          return (
            <li key={card.id}>
              <Link to={`/board?task=${encodeURIComponent(card.id)}`} className="working-task">
                {card.id}: {card.title}
              </Link>
              {a ? (
                <span className={`lifecycle lifecycle-${a.lifecycle}`}>
                  {LIFECYCLE[a.lifecycle]} {agentLabel(a)}
                  {team ? <span className="machine"> on {whereLabel(a)}</span> : null}
                  {a.activity ? <span className="muted"> — {a.activity}</span> : null}
                </span>
              ) : (
                <span className="badge badge-warn">
                  {card.agent_session
                    ? `claimed by ${shortId(card.agent_session)}${card.machine ? ` on ${card.machine}` : ''}, not here`
                    : 'no claimant recorded'}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {free.length > 0 ? (
        <p className="muted">
          Not on a task:{' '}
          {free
            .map(
              (a) =>
                `${agentLabel(a)}${team ? ` on ${a.machine}` : ''}${a.activity ? ` (${a.activity})` : ''}`,
            )
            .join('; ')}
        </p>
      ) : null}
    </section>
  );
}

function AgentRow({
  a,
  selected,
  onSelect,
  team,
  cost,
}: {
  a: Agent;
  selected: boolean;
  onSelect: (id: string) => void;
  team: boolean;
  cost: CostGroup | undefined;
}) {
  return (
    <tr className={selected ? 'selected' : undefined} data-agent={a.id}>
      <td>
        <button type="button" className="link-button" onClick={() => onSelect(a.id)} aria-pressed={selected}>
          {a.client ?? 'client not named yet'}
        </button>
        <div className="muted">
          <code title={a.id}>{shortId(a.id)}</code>
          {a.model ? ` · ${a.model}` : ''}
          {a.source === 'hooks+mcp' ? ' · hooks + MCP' : a.source === 'mcp' ? ' · MCP only' : ''}
        </div>
      </td>
      {team ? (
        <td data-testid="agent-machine">
          {a.machine}
          {a.branch ? <div className="muted">{a.branch}</div> : null}
        </td>
      ) : null}
      <td className={`lifecycle lifecycle-${a.lifecycle}`}>{LIFECYCLE[a.lifecycle]}</td>
      <td>
        {a.claimed_task ? (
          <Link to={`/board?task=${encodeURIComponent(a.claimed_task.id)}`}>
            {a.claimed_task.id}: {a.claimed_task.title}
          </Link>
        ) : null}
        <div className={a.claimed_task ? 'muted' : undefined}>
          {a.activity ?? (a.end_reason ? `left: ${a.end_reason}` : '')}
        </div>
      </td>
      <td className="num">{a.files_total}</td>
      <td className="num" data-testid="agent-cost">
        <CostAmount cost={cost} />
      </td>
      <td>{ago(a.last_activity_at)}</td>
    </tr>
  );
}

export function AgentsCard({
  selected,
  onSelect,
  machine,
  onMachine,
}: {
  selected: string | null;
  onSelect: (id: string) => void;
  machine: string | null;
  onMachine: (machine: string | null) => void;
}) {
  const query = useAgents();
  const everyone = query.state.value?.data.entries ?? [];
  const { machines, team } = teamOf(everyone);
  const entries = machine ? everyone.filter((a) => a.machine === machine) : everyone;
  const here = entries.filter((a) => a.lifecycle !== 'ended');
  const gone = entries.filter((a) => a.lifecycle === 'ended');
  const counts = query.state.value?.data.counts;
  const costs = useCostMap('agent');
  const table = (rows: Agent[], testid: string) => (
    <div className="table-wrap">
      <table className="table agents-table" data-testid={testid}>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            {team ? <th scope="col">Machine</th> : null}
            <th scope="col">State</th>
            <th scope="col">Doing now</th>
            <th scope="col" className="num">
              Files
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <AgentRow
              key={a.id}
              a={a}
              selected={a.id === selected}
              onSelect={onSelect}
              team={team}
              cost={costs.get(a.id)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
  return (
    <section className="card wide" aria-labelledby="agents-title">
      <div className="card-header">
        <h2 id="agents-title">Agents</h2>
        {counts ? (
          <span className="muted" data-testid="agent-counts">
            {counts.active} active · {counts.present} present · {counts.idle} idle
            {team ? ` · ${machines.length} machine${machines.length === 1 ? '' : 's'}` : ''}
          </span>
        ) : null}
        {team || machine ? (
          <label className="inline-field">
            Machine{' '}
            <select
              data-testid="machine-filter"
              value={machine ?? ''}
              onChange={(e) => onMachine(e.currentTarget.value || null)}
            >
              <option value="">every machine</option>
              {[...new Set([...machines, ...(machine ? [machine] : [])])].map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {here.length === 0 && query.state.value && machine ? (
        <p className="muted">No agent is here on {machine}.</p>
      ) : null}
      {here.length === 0 && query.state.value && !machine ? (
        <p className="muted">
          No agent is here. Connect one with <code>cos connect claude-code</code> (or codex, gemini), or from
          Health &amp; Settings.
        </p>
      ) : null}
      {here.length > 0 ? table(here, 'agents') : null}
      {gone.length > 0 ? (
        <details>
          <summary>{gone.length} ended in the last hour</summary>
          {table(gone, 'agents-ended')}
        </details>
      ) : null}
    </section>
  );
}

function EventRow({ e }: { e: HookEvent }) {
  return (
    <li data-kind={e.kind} className={e.ok === false ? 'event-failed' : undefined}>
      <time dateTime={new Date(e.at).toISOString()}>{time(e.at)}</time>{' '}
      <span className={`kind kind-${e.kind}`}>{KIND_LABEL[e.kind] ?? e.kind}</span>{' '}
      <span className="event-summary">{e.summary}</span>
    </li>
  );
}

export function AgentDetail({ agentId, machine }: { agentId: string | null; machine: string | null }) {
  const agents = useAgents();
  const agent = agents.state.value?.data.entries.find((a) => a.id === agentId);
  const query = useQuery(`activity:${agentId ?? ''}:${agentId ? '' : (machine ?? '')}`, (signal) =>
    agentActivity({ ...(agentId ? { agent: agentId } : machine ? { machine } : {}), limit: 100 }, signal),
  );
  useLive(query.reload, 700);
  // A tool use arrives twice (PreToolUse, then PostToolUse or a failure): once it finished, show it once.
  const all = query.state.value?.data.entries ?? [];
  const finished = new Set(
    all
      .filter((e) => e.phase !== 'pre')
      .map((e) => e.detail.tool_use_id)
      .filter(Boolean),
  );
  const entries = all.filter(
    (e) => e.phase !== 'pre' || !e.detail.tool_use_id || !finished.has(e.detail.tool_use_id),
  );
  return (
    <section className="card wide" aria-labelledby="timeline-title" data-testid="agent-timeline">
      <div className="card-header">
        <h2 id="timeline-title">
          {agent
            ? `Timeline: ${agentLabel(agent)}`
            : machine
              ? `Timeline: every agent on ${machine}`
              : 'Timeline: every agent'}
        </h2>
        {agent?.cwd ? <code className="muted">{agent.cwd}</code> : null}
      </div>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      <div className="timeline-grid">
        <div>
          <h3>What it did</h3>
          {entries.length === 0 && query.state.value ? (
            <p className="muted">No hook events yet. Agents report them once connected with cos connect.</p>
          ) : null}
          <ol className="timeline" aria-live="polite">
            {entries.map((e) => (
              <EventRow key={e.id} e={e} />
            ))}
          </ol>
        </div>
        <div>
          <h3>Files it edited</h3>
          {agent && agent.files.length > 0 ? (
            <ul className="file-list" data-testid="agent-files">
              {agent.files.map((f) => (
                <li key={f.path}>
                  <code>{f.path}</code>{' '}
                  <span className="muted">
                    ×{f.times}, {ago(f.at)}
                  </span>
                </li>
              ))}
              {agent.files_total > agent.files.length ? (
                <li className="muted">and {agent.files_total - agent.files.length} more</li>
              ) : null}
            </ul>
          ) : (
            <p className="muted">{agent ? 'None yet.' : 'Pick an agent in the table above.'}</p>
          )}
        </div>
      </div>
    </section>
  );
}

export function ConflictsCard({ machine }: { machine: string | null }) {
  const query = useQuery(`conflicts:${machine ?? ''}`, (signal) =>
    agentActivity({ kind: 'conflict', limit: 20, ...(machine ? { machine } : {}) }, signal),
  );
  const { team } = teamOf(useAgents().state.value?.data.entries ?? []);
  useLive(query.reload, 1000);
  const entries = query.state.value?.data.entries ?? [];
  return (
    <section className="card" aria-labelledby="conflicts-title" data-testid="conflicts">
      <h2 id="conflicts-title">Edit conflicts</h2>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {entries.length === 0 && query.state.value ? (
        <p className="muted">✓ None: no agent edited a file another held.</p>
      ) : null}
      <ul className="log-list">
        {entries.map((e) => (
          <li key={e.id}>
            <span className={`badge ${e.ok ? 'badge-warn' : 'badge-error'}`}>
              {e.ok ? 'warned' : 'refused'}
            </span>{' '}
            <time dateTime={new Date(e.at).toISOString()}>{time(e.at)}</time> <code>{shortId(e.agent)}</code>
            {team ? <span className="muted"> on {e.machine}</span> : null}{' '}
            {e.summary.replace(/^(warned|refused): /, '').replace(/ Coordinate before editing.*$/, '')}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function useSelectedAgent(machine: string | null): [string | null, (id: string) => void] {
  const agents = useAgents();
  const [picked, setPicked] = useState<string | null>(null);
  const entries = (agents.state.value?.data.entries ?? []).filter((a) => !machine || a.machine === machine);
  // Until someone picks one, the most recently active agent that reports hooks (on the machine shown).
  const fallback = entries.find((a) => a.lifecycle !== 'ended' && a.source !== 'mcp')?.id ?? null;
  const stillShown = picked !== null && entries.some((a) => a.id === picked);
  return [stillShown ? picked : fallback, setPicked];
}
