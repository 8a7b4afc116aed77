// Connect an agent: per client, what `cos connect <client>` writes into this project (its MCP server
// entry and its hooks), from the hub itself (the same plan the command prints with --dry-run), with
// copy buttons; and the plain MCP URL for any other client.
import { useState } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { useQuery } from '../../lib/use-query.ts';
import { type ConnectClient, connectPlan } from './api.ts';

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
  const hubUrl = window.location.origin;
  const mcpUrl = `${hubUrl}/mcp`;
  const [client, setClient] = useState<ConnectClient>('claude-code');
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
      <ClientPlan key={client} client={client} hubUrl={hubUrl} />
      <details>
        <summary>Other MCP clients (Cursor, Claude Desktop, …)</summary>
        <Snippet label="JSON config" text={json} />
      </details>
    </section>
  );
}
