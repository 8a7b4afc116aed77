// `cos connect <client>`: the project files that point a coding agent at this hub, both its MCP server
// entry and its lifecycle hooks, in each client's documented configuration format:
//   claude-code  .mcp.json (mcpServers.cos) and .claude/settings.local.json (hooks: `type: "http"` posting
//                to the hub, and a `type: "command"` SessionStart, the one event http hooks cannot serve;
//                and `cos` in enabledMcpjsonServers, Claude Code's documented approval of a project
//                .mcp.json server, so it does not wait as "Pending approval")
//   codex        .codex/config.toml ([mcp_servers.cos], in a marked block) and .codex/hooks.json
//   gemini       .gemini/settings.json (mcpServers.cos and hooks)
// Connecting twice changes nothing; every setting it did not write is kept; removing takes out exactly
// what it added (the state directory's connect.json remembers what each file held before). Command hooks
// run $COS_STATE_DIR/hooks/cos-hook.mjs, which fails open within a second.
import { mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export const CONNECT_CLIENTS = ['claude-code', 'codex', 'gemini'] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];

export function isConnectClient(v: string): v is ConnectClient {
  return (CONNECT_CLIENTS as readonly string[]).includes(v);
}

export const MCP_SERVER_NAME = 'cos';
export const HOOK_SCRIPT_NAME = 'cos-hook.mjs';
const MANIFEST_NAME = 'connect.json';
const TOML_BEGIN =
  '# >>> cos connect: the cos hub MCP server (`cos connect codex --remove` takes this block out)';
const TOML_END = '# <<< cos connect';
// Claude Code's settings (the project's local ones here): the .mcp.json servers approved, and rejected.
const APPROVED_KEY = 'enabledMcpjsonServers';
const REJECTED_KEY = 'disabledMcpjsonServers';

export interface ConnectContext {
  repo: string;
  stateDir: string;
  /** http://127.0.0.1:<port>, without a trailing slash. */
  hubUrl: string;
  /** The hub requires a bearer token: configs send $COS_HUB_TOKEN. */
  token: boolean;
  /** The node executable command hooks run the hook script with. */
  nodePath: string;
}

export interface PlannedFile {
  /** Repository-relative. */
  path: string;
  before: string | null;
  /** null: the file is removed (connect had created it). */
  after: string | null;
}

export interface ConnectPlan {
  client: ConnectClient;
  action: 'add' | 'remove';
  files: PlannedFile[];
  notes: string[];
}

export class ConnectError extends Error {}

interface ManifestFile {
  /** The file's text before the first connect (null: it did not exist). */
  original: string | null;
}
interface Manifest {
  version: 1;
  clients: Partial<Record<ConnectClient, { files: Record<string, ManifestFile> }>>;
}

export function hookScriptPath(ctx: ConnectContext): string {
  return join(ctx.stateDir, 'hooks', HOOK_SCRIPT_NAME);
}

/** POSIX shell quoting: every client runs a command hook through `sh -c`. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function hookCommand(ctx: ConnectContext, client: ConnectClient): string {
  return [ctx.nodePath, hookScriptPath(ctx), client, ctx.hubUrl].map(shellQuote).join(' ');
}

const ingestUrl = (ctx: ConnectContext, client: ConnectClient) =>
  `${ctx.hubUrl}/api/hooks/events?client=${client}`;

/** A hook handler this command wrote: one posting to the hub's ingest route or running the hook script. */
function isOurHandler(h: unknown): boolean {
  const o = h as { type?: unknown; url?: unknown; command?: unknown };
  if (o === null || typeof o !== 'object') return false;
  if (o.type === 'http' && typeof o.url === 'string') return o.url.includes('/api/hooks/events?client=');
  return typeof o.command === 'string' && o.command.includes(HOOK_SCRIPT_NAME);
}

type Json = Record<string, unknown>;

function parseJsonFile(path: string, text: string | null): Json {
  if (text === null || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ConnectError(
      `${path} is not valid JSON (${(err as Error).message}); fix it first, nothing was changed`,
    );
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ConnectError(`${path} does not hold a JSON object; fix it first, nothing was changed`);
  return v as Json;
}

/** The indentation a JSON file already uses (two spaces when it has none to copy). */
function indentOf(text: string | null): string | number {
  const m = text ? /\n([ \t]+)"/.exec(text) : null;
  return m?.[1] ?? 2;
}

function serialize(value: Json, like: string | null): string {
  return `${JSON.stringify(value, null, indentOf(like))}\n`;
}

/** Drops our handlers from every event of a `hooks` object; groups and events left empty by that go too. */
function stripHandlers(hooks: Json): void {
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept = [];
    for (const g of groups) {
      const handlers = (g as { hooks?: unknown })?.hooks;
      if (!Array.isArray(handlers)) {
        kept.push(g);
        continue;
      }
      const rest = handlers.filter((h) => !isOurHandler(h));
      if (rest.length === handlers.length) kept.push(g);
      else if (rest.length > 0) kept.push({ ...(g as Json), hooks: rest });
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
}

function addHandlers(doc: Json, handlers: Record<string, Json>): void {
  const hooks = (doc.hooks ?? {}) as Json;
  if (typeof hooks !== 'object' || Array.isArray(hooks))
    throw new ConnectError('its "hooks" setting is not an object; fix it first, nothing was changed');
  stripHandlers(hooks);
  for (const [event, handler] of Object.entries(handlers)) {
    const groups = hooks[event];
    if (groups !== undefined && !Array.isArray(groups))
      throw new ConnectError(`its hooks.${event} is not a list; fix it first, nothing was changed`);
    hooks[event] = [...((groups as unknown[]) ?? []), { hooks: [handler] }];
  }
  doc.hooks = hooks;
}

/**
 * Approves our .mcp.json server in Claude Code's settings, as a first run would when the user accepts it;
 * a rejection the user made (disabledMcpjsonServers) stands, and a note says so.
 */
function approveMcpjsonServer(doc: Json, path: string, notes: string[]): void {
  const approved = doc[APPROVED_KEY];
  if (approved !== undefined && !Array.isArray(approved))
    throw new ConnectError(`its "${APPROVED_KEY}" setting is not a list; fix it first, nothing was changed`);
  const rejected = doc[REJECTED_KEY];
  if (Array.isArray(rejected) && rejected.includes(MCP_SERVER_NAME)) {
    notes.push(
      `The cos server stays rejected, as ${path} says (${REJECTED_KEY}); take "${MCP_SERVER_NAME}" out of that list, or enable it in Claude Code's /mcp`,
    );
    return;
  }
  if (!(approved ?? []).includes(MCP_SERVER_NAME)) doc[APPROVED_KEY] = [...(approved ?? []), MCP_SERVER_NAME];
  notes.push(
    `The cos server in .mcp.json is approved for this checkout (${APPROVED_KEY} in ${path}), so Claude Code does not ask first`,
  );
}

function setMcpServer(doc: Json, key: string, entry: Json): void {
  const servers = (doc[key] ?? {}) as Json;
  if (typeof servers !== 'object' || Array.isArray(servers))
    throw new ConnectError(`its "${key}" setting is not an object; fix it first, nothing was changed`);
  servers[MCP_SERVER_NAME] = entry;
  doc[key] = servers;
}

/**
 * Takes out what connect added to a JSON settings file: our hook handlers, the MCP entry (restored
 * to what the file held before), and our name in the approved servers when connect put it there.
 * `original` is the file's text before the first connect (null: there was no file; undefined: not
 * remembered). When nothing else changed since, the original comes back byte for byte, or the file goes
 * if connect created it.
 */
function removeFromJson(
  path: string,
  current: string,
  original: string | null | undefined,
  mcpKey: string | null,
  mcpUrl: string,
  approves: boolean,
): string | null {
  const doc = parseJsonFile(path, current);
  const untouched = structuredClone(doc);
  const before = original == null ? undefined : parseJsonFile(path, original);
  const hadKey = (k: string) => before !== undefined && k in before;
  if (doc.hooks && typeof doc.hooks === 'object' && !Array.isArray(doc.hooks)) {
    stripHandlers(doc.hooks as Json);
    if (
      Object.keys(doc.hooks as Json).length === 0 &&
      !hadKey('hooks') &&
      !isDeepStrictEqual(doc.hooks, untouched.hooks)
    )
      delete doc.hooks;
  }
  const servers = mcpKey ? doc[mcpKey] : undefined;
  if (mcpKey && servers && typeof servers === 'object' && !Array.isArray(servers)) {
    const entry = (servers as Json)[MCP_SERVER_NAME] as { url?: unknown; httpUrl?: unknown } | undefined;
    const prior = (before?.[mcpKey] as Json | undefined)?.[MCP_SERVER_NAME];
    if (prior !== undefined) (servers as Json)[MCP_SERVER_NAME] = prior;
    // Without a record, only an entry pointing at this hub is known to be ours.
    else if (
      entry !== undefined &&
      (original !== undefined || entry.url === mcpUrl || entry.httpUrl === mcpUrl)
    ) {
      delete (servers as Json)[MCP_SERVER_NAME];
      if (Object.keys(servers as Json).length === 0 && !hadKey(mcpKey)) delete doc[mcpKey];
    }
  }
  const approved = approves ? doc[APPROVED_KEY] : undefined;
  const approvedBefore = before?.[APPROVED_KEY];
  // An approval the user had given before connect is theirs; other names in the list are always theirs.
  if (
    Array.isArray(approved) &&
    approved.includes(MCP_SERVER_NAME) &&
    !(Array.isArray(approvedBefore) && approvedBefore.includes(MCP_SERVER_NAME))
  ) {
    const rest = approved.filter((n) => n !== MCP_SERVER_NAME);
    if (rest.length === 0 && !hadKey(APPROVED_KEY)) delete doc[APPROVED_KEY];
    else doc[APPROVED_KEY] = rest;
  }
  // Nothing of ours in it: the file stays exactly as it is.
  if (isDeepStrictEqual(doc, untouched) && original === undefined) return current;
  if (original === null && Object.keys(doc).length === 0) return null;
  if (before !== undefined && isDeepStrictEqual(doc, before)) return original ?? null;
  return isDeepStrictEqual(doc, untouched) ? current : serialize(doc, current);
}

function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlBlock(ctx: ConnectContext): string {
  const lines = [TOML_BEGIN, `[mcp_servers.${MCP_SERVER_NAME}]`, `url = ${tomlString(`${ctx.hubUrl}/mcp`)}`];
  if (ctx.token) lines.push('bearer_token_env_var = "COS_HUB_TOKEN"');
  lines.push(TOML_END);
  return lines.join('\n');
}

/** The text with our marked block taken out (with the blank line connect put before it). */
function stripTomlBlock(text: string): string {
  const start = text.indexOf(TOML_BEGIN);
  if (start === -1) return text;
  const endMark = text.indexOf(TOML_END, start);
  if (endMark === -1)
    throw new ConnectError(
      '.codex/config.toml has the start of the cos block but not its end; fix it by hand, nothing was changed',
    );
  let end = endMark + TOML_END.length;
  if (text[end] === '\n') end++;
  let from = start;
  if (text.slice(0, from).endsWith('\n\n')) from--;
  return text.slice(0, from) + text.slice(end);
}

function addTomlBlock(text: string | null, ctx: ConnectContext): string {
  const base = text === null ? '' : stripTomlBlock(text);
  // A [mcp_servers.cos] table the user wrote is theirs: two tables of one name would make Codex refuse the file.
  if (/^\s*\[\s*mcp_servers\s*\.\s*("cos"|cos)\s*\]/m.test(base))
    throw new ConnectError(
      '.codex/config.toml already defines [mcp_servers.cos]; remove it or point it at this hub yourself, nothing was changed',
    );
  const sep = base === '' ? '' : base.endsWith('\n') ? '\n' : '\n\n';
  return `${base}${sep}${tomlBlock(ctx)}\n`;
}

function claudeHooks(ctx: ConnectContext): Record<string, Json> {
  const http = (): Json => ({
    type: 'http',
    url: ingestUrl(ctx, 'claude-code'),
    timeout: 1,
    ...(ctx.token
      ? { headers: { Authorization: 'Bearer $COS_HUB_TOKEN' }, allowedEnvVars: ['COS_HUB_TOKEN'] }
      : {}),
  });
  const events = [
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Notification',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ];
  // SessionStart runs only command hooks: the hook script posts it (and prints the hub's context).
  const out: Record<string, Json> = {
    SessionStart: { type: 'command', command: hookCommand(ctx, 'claude-code'), timeout: 5 },
  };
  for (const e of events) out[e] = http();
  return out;
}

function commandHooks(
  ctx: ConnectContext,
  client: 'codex' | 'gemini',
  events: readonly string[],
): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const e of events)
    out[e] =
      client === 'gemini'
        ? {
            name: 'cos-hub',
            type: 'command',
            command: hookCommand(ctx, client),
            timeout: 5000,
            description: 'reports this event to the cos hub',
          }
        : { type: 'command', command: hookCommand(ctx, client), timeout: 5, statusMessage: 'cos hub' };
  return out;
}

// Codex: the events its hooks.json schema documents (it has no SessionEnd there; silence ends a session).
const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SubagentStop',
  'PreCompact',
];
const GEMINI_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'BeforeAgent',
  'AfterAgent',
  'BeforeTool',
  'AfterTool',
  'Notification',
  'PreCompress',
];

interface ClientFile {
  path: string;
  kind: 'json' | 'toml';
  /** For JSON files, the key of the MCP servers object ("mcpServers"), when the file holds it. */
  mcpKey: string | null;
  /** The file holds Claude Code's approval of our .mcp.json server (enabledMcpjsonServers). */
  approves?: boolean;
  add: (text: string | null) => string;
}

/** The files of a client; `notes` receives what adding found worth saying (an approval, a rejection). */
function clientFiles(client: ConnectClient, ctx: ConnectContext, notes: string[]): ClientFile[] {
  const json = (path: string, mcpKey: string | null, edit: (doc: Json) => void): ClientFile => ({
    path,
    kind: 'json',
    mcpKey,
    add: (text) => {
      const doc = parseJsonFile(path, text);
      try {
        edit(doc);
      } catch (err) {
        if (err instanceof ConnectError) throw new ConnectError(`${path}: ${err.message}`);
        throw err;
      }
      return serialize(doc, text);
    },
  });
  const mcpUrl = `${ctx.hubUrl}/mcp`;
  // The client expands ${COS_HUB_TOKEN} from the agent's environment: the token is never written here.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the client's own placeholder syntax, not a template
  const bearer = ctx.token ? { headers: { Authorization: 'Bearer ${COS_HUB_TOKEN}' } } : {};
  switch (client) {
    case 'claude-code':
      return [
        json('.mcp.json', 'mcpServers', (d) =>
          setMcpServer(d, 'mcpServers', { type: 'http', url: mcpUrl, ...bearer }),
        ),
        {
          ...json('.claude/settings.local.json', null, (d) => {
            addHandlers(d, claudeHooks(ctx));
            approveMcpjsonServer(d, '.claude/settings.local.json', notes);
          }),
          approves: true,
        },
      ];
    case 'codex':
      return [
        { path: '.codex/config.toml', kind: 'toml', mcpKey: null, add: (text) => addTomlBlock(text, ctx) },
        json('.codex/hooks.json', null, (d) => addHandlers(d, commandHooks(ctx, 'codex', CODEX_EVENTS))),
      ];
    case 'gemini':
      return [
        json('.gemini/settings.json', 'mcpServers', (d) => {
          setMcpServer(d, 'mcpServers', {
            httpUrl: mcpUrl,
            ...(ctx.token ? { headers: { Authorization: 'Bearer $COS_HUB_TOKEN' } } : {}),
          });
          addHandlers(d, commandHooks(ctx, 'gemini', GEMINI_EVENTS));
        }),
      ];
  }
}

const NOTES: Record<ConnectClient, string[]> = {
  'claude-code': [
    'Hooks and the approval in .claude/settings.local.json apply to this checkout only (the file is not committed).',
    'Tool events post straight to the hub (http hooks, 1 s timeout); SessionStart runs the hook script, which answers with the session id to pass as agent_session.',
  ],
  codex: [
    "Codex loads a project's .codex/ files only in a trusted project, and runs new hooks only after you trust them in /hooks.",
    "Codex hooks.json has no SessionEnd: a Codex session leaves the hub's presence after the agent timeout of silence.",
  ],
  gemini: [
    'Gemini CLI reads .gemini/settings.json in a trusted folder; /hooks panel lists the cos-hub hooks.',
  ],
};

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function readManifest(stateDir: string): Manifest {
  const text = readText(join(stateDir, MANIFEST_NAME));
  if (text === null) return { version: 1, clients: {} };
  try {
    const m = JSON.parse(text) as Manifest;
    if (m && typeof m === 'object' && m.clients && typeof m.clients === 'object') return m;
  } catch {
    // A damaged manifest only loses the byte-exact restore; removal still finds our entries by their marks.
  }
  return { version: 1, clients: {} };
}

/** What `cos connect` would write (or, with remove, take out), without touching anything. */
export function planConnect(
  client: ConnectClient,
  ctx: ConnectContext,
  action: 'add' | 'remove',
): ConnectPlan {
  const manifest = readManifest(ctx.stateDir);
  const remembered = manifest.clients[client]?.files ?? {};
  const files: PlannedFile[] = [];
  const notes: string[] = [];
  for (const f of clientFiles(client, ctx, notes)) {
    const before = readText(join(ctx.repo, f.path));
    const original = f.path in remembered ? (remembered[f.path]?.original ?? null) : undefined;
    let after: string | null;
    if (action === 'add') after = f.add(before);
    else if (before === null) after = null;
    else if (f.kind === 'toml') {
      const stripped = stripTomlBlock(before);
      if (original !== undefined && stripped === (original ?? '')) after = original;
      else after = stripped;
    } else
      after = removeFromJson(f.path, before, original, f.mcpKey, `${ctx.hubUrl}/mcp`, f.approves === true);
    if (after !== before) files.push({ path: f.path, before, after });
  }
  return { client, action, files, notes: action === 'add' ? [...notes, ...NOTES[client]] : [] };
}

function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${process.pid}.cos-connect.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Writes a plan (and, when adding, the hook script), remembering what each file held before. */
export function applyConnect(plan: ConnectPlan, ctx: ConnectContext, script: string): void {
  const manifest = readManifest(ctx.stateDir);
  const entry = manifest.clients[plan.client] ?? { files: {} };
  manifest.clients[plan.client] = entry;
  if (plan.action === 'add') {
    writeAtomic(hookScriptPath(ctx), script);
    for (const f of plan.files) if (!(f.path in entry.files)) entry.files[f.path] = { original: f.before };
  }
  for (const f of plan.files) {
    const abs = join(ctx.repo, f.path);
    if (f.after === null) {
      rmSync(abs, { force: true });
      // A directory connect created for the file (.claude/, .codex/, .gemini/) goes with it when empty.
      try {
        rmdirSync(dirname(abs));
      } catch {
        // Not empty, or the repository root: it stays.
      }
    } else writeAtomic(abs, f.after);
  }
  if (plan.action === 'remove') delete manifest.clients[plan.client];
  writeAtomic(join(ctx.stateDir, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** A compact line diff of one planned file, for --dry-run and the Settings page. */
export function diffText(f: PlannedFile): string {
  const a = f.before === null ? [] : f.before.split('\n');
  const b = f.after === null ? [] : f.after.split('\n');
  // Longest common subsequence over lines; settings files are small.
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) return `${f.after === null ? '--- removed' : '+++ rewritten'} ${f.path}`;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      lines.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i >= n || dp[i]![j + 1]! >= dp[i + 1]![j]!)) lines.push(`+ ${b[j++]}`);
    else lines.push(`- ${a[i++]}`);
  }
  // Context of two lines around each change.
  const keep = lines.map(
    (l, k) => !l.startsWith('  ') || lines.slice(Math.max(0, k - 2), k + 3).some((x) => !x.startsWith('  ')),
  );
  const out: string[] = [
    `${f.before === null ? 'new file' : f.after === null ? 'removed' : 'changed'}: ${f.path}`,
  ];
  let skipped = false;
  lines.forEach((l, k) => {
    if (keep[k]) {
      out.push(l);
      skipped = false;
    } else if (!skipped) {
      out.push('  …');
      skipped = true;
    }
  });
  return out.join('\n');
}

/** The hook script's text, shipped beside this module. */
export function hookScriptSource(): string {
  // One quoted literal: the build ships the script at this path and rewrites the URL for dist/.
  return readFileSync(new URL('./cos-hook.mjs', import.meta.url), 'utf8');
}
