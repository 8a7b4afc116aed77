import { useEffect, useState } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { ErrorNotice } from '../../components/error-notice.tsx';
import { onModulesChanged } from '../../lib/modules.ts';
import { PROJECT_BASE } from '../../lib/project.ts';
import { useQuery } from '../../lib/use-query.ts';
import { mcpProfiles } from './api.ts';

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

export function ConnectPanel() {
  // The page is served by the hub, so its own origin is the hub's address.
  // Under /p/<slug>/ the project's own MCP endpoint.
  const origin = `${window.location.origin}${PROJECT_BASE}`;
  const query = useQuery('mcp-profiles', mcpProfiles);
  useEffect(() => onModulesChanged(query.reload), [query.reload]);
  const [chosen, setChosen] = useState('all');
  const profiles = query.state.value?.data.profiles ?? [];
  const path = profiles.find((p) => p.name === chosen)?.path ?? '/mcp';
  const mcpUrl = `${origin}${path}`;
  const claude = `claude mcp add --transport http cos ${mcpUrl}`;
  const json = JSON.stringify({ mcpServers: { cos: { type: 'http', url: mcpUrl } } }, null, 2);
  return (
    <section className="card" aria-labelledby="connect-title">
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
    </section>
  );
}
