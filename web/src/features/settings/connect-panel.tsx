import { CopyButton } from '../../components/copy-button.tsx';

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
  const mcpUrl = `${window.location.origin}/mcp`;
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
      <Snippet label="Claude Code command" text={claude} />
      <Snippet label="JSON config (Cursor, Claude Desktop, others)" text={json} />
    </section>
  );
}
