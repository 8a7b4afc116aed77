// The hub's home page when it serves more than one repository: a card per project (tasks by status,
// graph freshness, agents at work, errors in the last hour) and the newest activity of all of them.
import { useEffect } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { Page } from '../../components/page.tsx';
import { pageInProject } from '../../lib/project.ts';
import { useQuery } from '../../lib/use-query.ts';
import { crossProjectActivity, listProjects, type ProjectInfo } from './api.ts';

const REFRESH_MS = 5000;

function hrefOf(p: ProjectInfo, page: string): string {
  return pageInProject(p.default ? null : p.slug, page);
}

function ago(at: number): string {
  const minutes = Math.round((Date.now() - at) / 60_000);
  return minutes < 1 ? 'just now' : minutes < 60 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

function freshness(graph: NonNullable<ProjectInfo['summary']>['graph']): string {
  if (!graph) return 'graph off';
  if (graph.queued) return `queued (${graph.queued} in line)`;
  if (graph.indexing) return 'indexing…';
  if (graph.last_indexed_at === null) return 'not indexed yet';
  const age = ago(graph.last_indexed_at);
  return `${graph.files} file${graph.files === 1 ? '' : 's'} · indexed ${age}${graph.files_pending ? ` · ${graph.files_pending} pending` : ''}`;
}

/** Whether anybody is using the project, and whether it let go of its caches meanwhile. */
function use(p: ProjectInfo): string {
  if (p.released_at !== null)
    return `idle since ${new Date(p.last_used_at).toLocaleTimeString()} · caches released, watchers on`;
  if (p.idle) return `idle since ${new Date(p.last_used_at).toLocaleTimeString()}`;
  return `in use · last call ${ago(Date.parse(p.last_used_at))}`;
}

function ProjectCard({ project }: { project: ProjectInfo }) {
  const s = project.summary;
  const tasks = s?.tasks;
  const statuses = tasks ? Object.entries(tasks.by_status).filter(([, n]) => n > 0) : [];
  const atWork = s ? s.agents.active + s.agents.present : 0;
  return (
    <section
      className="card project-card"
      data-testid="project-card"
      data-slug={project.slug}
      aria-labelledby={`project-${project.slug}`}
    >
      <div className="card-header">
        <h2 id={`project-${project.slug}`}>
          <a href={hrefOf(project, '/board')}>{project.slug}</a>
        </h2>
        {project.default ? <span className="badge">default</span> : null}
      </div>
      <p className="muted project-repo" title={project.repo}>
        {project.repo}
      </p>
      {s === null ? (
        <p className="call-failed">Summary unavailable: {project.summary_error ?? 'unknown error'}</p>
      ) : (
        <dl className="project-facts">
          <dt>Tasks</dt>
          <dd data-testid="project-tasks">
            {tasks ? (
              <>
                {tasks.total}{' '}
                {statuses.length > 0
                  ? `(${statuses.map(([k, n]) => `${n} ${k.replace('_', ' ')}`).join(', ')})`
                  : ''}
              </>
            ) : (
              'board off'
            )}
          </dd>
          <dt>Graph</dt>
          <dd data-testid="project-graph">{freshness(s?.graph ?? null)}</dd>
          <dt>Agents</dt>
          <dd data-testid="project-agents">
            {atWork === 0 ? 'none at work' : `${s?.agents.active} active · ${s?.agents.present} present`}
          </dd>
          <dt>Use</dt>
          <dd data-testid="project-use" className={project.released_at !== null ? 'muted' : ''}>
            {use(project)}
          </dd>
          <dt>Errors (1 h)</dt>
          <dd className={s && s.errors_last_hour > 0 ? 'call-failed' : ''}>{s?.errors_last_hour ?? 0}</dd>
        </dl>
      )}
      <p className="project-links">
        <a href={hrefOf(project, '/board')}>Board</a> · <a href={hrefOf(project, '/activity')}>Activity</a> ·{' '}
        <a href={hrefOf(project, '/graph')}>Graph</a>
      </p>
      <p className="project-mcp">
        <code>{project.mcp_url}</code>{' '}
        <CopyButton text={project.mcp_url} label="Copy" name={`the MCP URL of ${project.slug}`} />
      </p>
    </section>
  );
}

function CrossActivity({ projects }: { projects: readonly ProjectInfo[] }) {
  const key = projects.map((p) => p.slug).join(',');
  const query = useQuery(`cross-activity:${key}`, async (signal) => ({
    ok: true as const,
    value: await crossProjectActivity(projects, signal),
  }));
  useEffect(() => {
    const timer = setInterval(query.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [query.reload]);
  const value = query.state.value;
  return (
    <section className="card wide" aria-labelledby="cross-activity-title">
      <div className="card-header">
        <h2 id="cross-activity-title">Activity in every project</h2>
        <span className="muted">refreshes every {REFRESH_MS / 1000} s</span>
      </div>
      {value && value.failed.length > 0 ? (
        <p className="call-failed">Could not read the activity of {value.failed.join(', ')}.</p>
      ) : null}
      {value && value.entries.length === 0 ? <p className="muted">Nothing yet.</p> : null}
      <div className="scroll-table">
        <table className="table" data-testid="cross-activity">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Project</th>
              <th scope="col">What</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {(value?.entries ?? []).map((e) => (
              <tr key={`${e.project}:${e.kind}:${e.id}`} data-project={e.project}>
                <td className="muted">{new Date(e.at).toLocaleTimeString()}</td>
                <td>{e.project}</td>
                <td>
                  <span className="muted">{e.kind === 'tool_call' ? '' : `${e.kind} `}</span>
                  {e.summary}
                </td>
                <td className={e.ok ? 'call-ok' : 'call-failed'}>{e.ok ? '✓ ok' : '✕ failed'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export default function HomePage() {
  const query = useQuery('projects', listProjects);
  useEffect(() => {
    const timer = setInterval(query.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [query.reload]);
  const projects = query.state.value?.data.projects;
  return (
    <Page title="Projects">
      {query.state.status === 'error' ? <ErrorNotice error={query.state.error} /> : null}
      {projects ? (
        <div className="grid">
          {projects.map((p) => (
            <ProjectCard key={p.slug} project={p} />
          ))}
          <CrossActivity projects={projects} />
        </div>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </Page>
  );
}
