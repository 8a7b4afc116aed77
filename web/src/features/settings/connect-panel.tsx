// Connect an agent: the MCP URL for each tool profile with the commands that use it; and per client,
// what `cos connect <client>` writes into this project (its MCP server entry and its hooks), from the hub
// itself (the same plan the command prints with --dry-run), with copy buttons.
import { useEffect, useState } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { onModulesChanged } from '../../lib/modules.ts';
import { PROJECT_BASE } from '../../lib/project.ts';
import { useQuery } from '../../lib/use-query.ts';
import { type ConnectClient, connectPlan, mcpProfiles } from './api.ts';

const CLIENTS: { id: ConnectClient; name: string }[] = [
  { id: 'claude-code', name: 'Claude Code' },
  { id: 'codex', name: 'Codex' },
  { id: 'gemini', name: 'Gemini CLI' },
];

function Snippet({ label, text }: { label: string; text: string }) {
  return (
    <div className="snippet">
      <div className="snippet-header">
        <span>{label}</span>
        <CopyButton text={text} name={label} />
      </div>
      <pre>
        <code>{text}</code>
      </pre>
    </div>
  );
}

function ClientPlan({ client, hubUrl }: { client: ConnectClient; hubUrl: string }) {
  const query = useQuery(`connect:${client}`, (signal) => connectPlan(client, { hub_url: hubUrl }, signal));
  const plan = query.state.value?.data;
  return (
    <div data-testid={`connect-${client}`}>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {plan ? (
        <>
          <Snippet label="Run in the project" text={plan.command} />
          {plan.files.length === 0 ? (
            <p className="muted">✓ Connected: this project's files already point at this hub.</p>
          ) : (
            <>
              <p className="muted">It writes (keeping every setting already there):</p>
              {plan.files.map((f) => (
                <Snippet
                  key={f.path}
                  label={`${f.path}${f.exists ? ' (changed)' : ' (new)'}`}
                  text={f.after ?? ''}
                />
              ))}
            </>
          )}
          <ul className="muted compact-list">
            {plan.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
            <li>
              <code>{plan.command} --remove</code> takes out exactly what it added.
            </li>
          </ul>
        </>
      ) : null}
    </div>
  );
}

export function ConnectPanel() {
  // The page is served by the hub, so its own origin is the hub's address.
  // Under /p/<slug>/ the project's own MCP endpoint.
  const origin = `${window.location.origin}${PROJECT_BASE}`;
  const query = useQuery('mcp-profiles', mcpProfiles);
  useEffect(() => onModulesChanged(query.reload), [query.reload]);
  const [chosen, setChosen] = useState('all');
  const [client, setClient] = useState<ConnectClient>('claude-code');
  const profiles = query.state.value?.data.profiles ?? [];
  const path = profiles.find((p) => p.name === chosen)?.path ?? '/mcp';
  const mcpUrl = `${origin}${path}`;
  const claude = `claude mcp add --transport http cos ${mcpUrl}`;
  const json = JSON.stringify({ mcpServers: { cos: { type: 'http', url: mcpUrl } } }, null, 2);
  return (
    <section className="card wide" aria-labelledby="connect-title">
      <div className="card-header">
        <h2 id="connect-title">Connect an agent</h2>
      </div>
      <p>
        MCP endpoint (Streamable HTTP): <code data-testid="mcp-url">{mcpUrl}</code>{' '}
        <CopyButton text={mcpUrl} label="Copy URL" />
      </p>
      {query.state.status === 'error' ? (
        <ErrorNotice error={query.state.error} onRetry={query.reload} />
      ) : null}
      {profiles.length > 0 ? (
        <fieldset className="profiles">
          <legend>Tool profile</legend>
          <p className="muted profiles-hint">A smaller tool list costs the agent less to read.</p>
          <ul className="profile-list">
            {profiles.map((p) => (
              <li key={p.name} data-profile={p.name}>
                <label className="switch">
                  <input
                    type="radio"
                    name="mcp-profile"
                    value={p.name}
                    checked={chosen === p.name}
                    onChange={() => setChosen(p.name)}
                  />
                  <span className="module-name">{p.name}</span>
                  <span className="muted">
                    {p.tools.length} tools{p.default ? ', the default' : ''}
                  </span>
                </label>
                <span className="muted">{p.summary}</span>
                <span className="profile-url">
                  <code>{`${origin}${p.path}`}</code>
                  <CopyButton text={`${origin}${p.path}`} label="Copy" name={`the ${p.name} URL`} />
                </span>
              </li>
            ))}
          </ul>
        </fieldset>
      ) : null}
      <Snippet label="Claude Code command" text={claude} />
      <Snippet label="JSON config (Cursor, Claude Desktop, others)" text={json} />
      <h3>MCP and hooks: cos connect</h3>
      <p className="muted">
        <code>cos connect</code> adds the MCP server and the lifecycle hooks that let the hub see what the
        agent does (prompts, edits, commands) and warn it before it edits a file another agent holds.
      </p>
      <div className="segmented" role="tablist" aria-label="Client">
        {CLIENTS.map((c) => (
          <button
            key={c.id}
            type="button"
            role="tab"
            aria-selected={client === c.id}
            className={client === c.id ? 'selected' : undefined}
            onClick={() => setClient(c.id)}
          >
            {c.name}
          </button>
        ))}
      </div>
      <ClientPlan key={client} client={client} hubUrl={origin} />
    </section>
  );
}
