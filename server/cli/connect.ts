import type { Config } from '../config.ts';
import {
  applyConnect,
  CONNECT_CLIENTS,
  type ConnectContext,
  ConnectError,
  diffText,
  hookScriptSource,
  isConnectClient,
  planConnect,
} from '../hooks/connect.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';

export interface ConnectFlags {
  remove?: boolean;
  dryRun?: boolean;
  /** The hub's URL as agents reach it (default http://127.0.0.1:<port>). */
  url?: string;
}

export const CONNECT_USAGE = `usage: cos connect <${CONNECT_CLIENTS.join('|')}> [--remove] [--dry-run] [--url http://127.0.0.1:PORT]`;

export const CONNECT_HELP = `${CONNECT_USAGE}

Writes the client's MCP server entry for this hub and its lifecycle hooks (pointing at the hub) into the
project; for Claude Code it also approves that server (enabledMcpjsonServers in .claude/settings.local.json),
so Claude Code does not list it as "Pending approval". Idempotent; keeps every setting it did not write.
--remove takes out exactly what it added, --dry-run prints the change and writes nothing, --url names
the hub (default http://127.0.0.1:<port>).

${CONFIG_FLAGS_HELP}`;

/** The hub URL agents on this machine use: loopback and the configured port, unless given. */
export function hubUrlOf(config: Config, url: string | undefined): string {
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConnectError(`--url must be the hub's URL, such as http://127.0.0.1:${config.port}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new ConnectError('--url must be an http:// or https:// URL');
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  }
  if (config.port === 0)
    throw new ConnectError('the hub port is 0 (any); pass --url with the port the hub listens on');
  return `http://127.0.0.1:${config.port}`;
}

/** `cos connect <client>`: points a coding agent at this hub (MCP server entry and lifecycle hooks). */
export function connectCommand(config: Config, args: string[], flags: ConnectFlags): number {
  const [client] = args;
  if (client === undefined || !isConnectClient(client) || args.length > 1) {
    console.error(
      client && !isConnectClient(client) ? `unknown client "${client}"\n${CONNECT_USAGE}` : CONNECT_USAGE,
    );
    return 2;
  }
  try {
    const ctx: ConnectContext = {
      repo: config.repo,
      stateDir: config.stateDir,
      hubUrl: hubUrlOf(config, flags.url),
      token: config.token !== undefined,
      nodePath: process.execPath,
    };
    const action = flags.remove ? 'remove' : 'add';
    const plan = planConnect(client, ctx, action);
    if (plan.files.length === 0) {
      console.log(
        action === 'add'
          ? `${client} is already connected to ${ctx.hubUrl}; nothing to change`
          : `${client} is not connected; nothing to remove`,
      );
      if (action === 'add' && !flags.dryRun) applyConnect(plan, ctx, hookScriptSource());
      return 0;
    }
    for (const f of plan.files) console.log(`${diffText(f)}\n`);
    if (flags.dryRun) {
      console.log(
        `dry run: nothing was written (${plan.files.length} file${plan.files.length === 1 ? '' : 's'} would change)`,
      );
      return 0;
    }
    applyConnect(plan, ctx, hookScriptSource());
    const names = plan.files.map((f) => f.path).join(', ');
    console.log(
      action === 'add'
        ? `connected ${client} to ${ctx.hubUrl}: ${names}`
        : `removed ${client}'s cos entries: ${names}`,
    );
    for (const note of plan.notes) console.log(`note: ${note}`);
    return 0;
  } catch (err) {
    if (err instanceof ConnectError) {
      console.error(`cos connect: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
