// One canonical event from each client's documented hook payload (Claude Code, Codex, Gemini CLI): what
// happened (kind, phase, tool, outcome), the files it names, and a redacted, size-capped detail. Nothing
// from a payload is ever executed or read from disk here; paths are only resolved as strings.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { isSecretKey, REDACTED, type Redactor } from './redact.ts';

export const HOOK_CLIENTS = ['claude-code', 'codex', 'gemini'] as const;
export type HookClient = (typeof HOOK_CLIENTS)[number] | 'unknown';

export function isHookClient(value: string): value is (typeof HOOK_CLIENTS)[number] {
  return (HOOK_CLIENTS as readonly string[]).includes(value);
}

export const EVENT_KINDS = [
  'session_start',
  'session_end',
  'prompt',
  'edit',
  'command',
  'read',
  'search',
  'web',
  'mcp',
  'tool',
  'stop',
  'subagent',
  'notification',
  'compact',
  'permission',
  'conflict',
  'refresh',
  'claim',
  'reservation',
  'other',
  'unknown',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export type Phase = 'pre' | 'post' | 'failed';

export interface NamedFile {
  /** Absolute (resolved against the payload's cwd when the client sent it relative). */
  path: string;
  role: 'edit' | 'read';
}

export interface NormalizedEvent {
  client: HookClient;
  /** The client's session_id: the agent's identity on the hub. */
  session: string;
  /** hook_event_name as sent. */
  event: string;
  kind: EventKind;
  phase: Phase | null;
  tool: string | null;
  ok: boolean | null;
  cwd: string | null;
  model: string | null;
  summary: string;
  files: NamedFile[];
  detail: Record<string, unknown>;
  /** SessionStart's source (startup, resume, clear…) or SessionEnd's reason. */
  reason: string | null;
  /**
   * transcript_path as sent (an absolute path of at most 4,096 characters, else null). Only a claim:
   * server/costs/folders.ts decides whether it is read.
   */
  transcript: string | null;
}

export class HookPayloadError extends Error {}

export interface NormalizeOptions {
  redact: Redactor;
  /** Keep the prompt's text (redacted); otherwise only its length and SHA-256. */
  storePrompts: boolean;
}

// Events each client documents, mapped to what they mean here. Anything else is kept as `other` (a
// documented event the hub has no use for yet) or `unknown` (a name no client documents).
const LIFECYCLE: Record<string, { kind: EventKind; phase?: Phase }> = {
  SessionStart: { kind: 'session_start' },
  SessionEnd: { kind: 'session_end' },
  UserPromptSubmit: { kind: 'prompt' },
  BeforeAgent: { kind: 'prompt' },
  Stop: { kind: 'stop' },
  AfterAgent: { kind: 'stop' },
  StopFailure: { kind: 'stop' },
  SubagentStart: { kind: 'subagent' },
  SubagentStop: { kind: 'subagent' },
  Notification: { kind: 'notification' },
  PreCompact: { kind: 'compact' },
  PostCompact: { kind: 'compact' },
  PreCompress: { kind: 'compact' },
  PermissionRequest: { kind: 'permission' },
  PermissionDenied: { kind: 'permission' },
};
const TOOL_PHASE: Record<string, Phase> = {
  PreToolUse: 'pre',
  BeforeTool: 'pre',
  PostToolUse: 'post',
  AfterTool: 'post',
  PostToolUseFailure: 'failed',
};
const OTHER_DOCUMENTED = new Set([
  'Setup',
  'UserPromptExpansion',
  'PostToolBatch',
  'MessageDisplay',
  'TaskCreated',
  'TaskCompleted',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'PreModelSwitch',
  'PostModelSwitch',
  'Elicitation',
  'ElicitationResult',
  'Interrupt',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
]);

// Tool names as each client spells them (Claude Code's, Codex's apply_patch and shell, Gemini CLI's).
const EDIT_TOOLS = new Set([
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
  'apply_patch',
  'write_file',
  'replace',
]);
const COMMAND_TOOLS = new Set([
  'Bash',
  'PowerShell',
  'run_shell_command',
  'shell',
  'local_shell',
  'exec_command',
]);
const READ_TOOLS = new Set(['Read', 'NotebookRead', 'read_file', 'read_many_files']);
const SEARCH_TOOLS = new Set([
  'Glob',
  'Grep',
  'LS',
  'glob',
  'search_file_content',
  'grep_search',
  'list_directory',
]);
const WEB_TOOLS = new Set(['WebFetch', 'WebSearch', 'web_fetch', 'google_web_search']);

export function toolKind(tool: string): EventKind {
  if (EDIT_TOOLS.has(tool)) return 'edit';
  if (COMMAND_TOOLS.has(tool)) return 'command';
  if (READ_TOOLS.has(tool)) return 'read';
  if (SEARCH_TOOLS.has(tool)) return 'search';
  if (WEB_TOOLS.has(tool)) return 'web';
  if (tool.startsWith('mcp__')) return 'mcp';
  return 'tool';
}

const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,199}$/;

function optionalString(body: Record<string, unknown>, key: string, max: number): string | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new HookPayloadError(`${key} must be a string`);
  if (v.length > max) throw new HookPayloadError(`${key} is longer than ${max} characters`);
  return v;
}

/** The client a payload comes from: the connect config names it; otherwise the payload's own shape. */
export function detectClient(body: Record<string, unknown>, hint: string | undefined): HookClient {
  if (hint !== undefined && isHookClient(hint)) return hint;
  // Only Gemini CLI stamps its payloads; only Codex numbers turns.
  if (typeof body.timestamp === 'string') return 'gemini';
  if (typeof body.turn_id === 'string') return 'codex';
  return 'unknown';
}

// Budgeted copy of a JSON value for `detail`: bounded depth, keys, items and string length, so a
// hostile payload costs a bounded amount of work and storage whatever its shape.
const MAX_DEPTH = 4;
const MAX_KEYS = 40;
const MAX_ITEMS = 20;
const MAX_STRING = 300;
const MAX_NODES = 400;

function capped(value: unknown, redact: Redactor, budget = { nodes: MAX_NODES }, depth = 0): unknown {
  if (--budget.nodes < 0) return '…';
  if (typeof value === 'string') return clip(redact.text(value), MAX_STRING);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '{…}';
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ITEMS).map((v) => capped(v, redact, budget, depth + 1));
    if (value.length > MAX_ITEMS) out.push(`… ${value.length - MAX_ITEMS} more`);
    return out;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value)) {
    if (n++ >= MAX_KEYS) {
      out['…'] = 'more keys';
      break;
    }
    const key = clip(k, 80);
    out[key] = typeof v === 'string' && isSecretKey(k) ? REDACTED : capped(v, redact, budget, depth + 1);
  }
  return out;
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function oneLine(s: string, max: number): string {
  return clip(s.replace(/\s+/g, ' ').trim(), max);
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function stringField(o: Record<string, unknown> | null, ...keys: string[]): string | null {
  if (!o) return null;
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return null;
}

/** The files a Codex apply_patch names (`*** Add File: x`, `*** Update File: x`, `*** Move to: y`). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  const re = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.{1,1000})$/gm;
  const text = patch.length > 1_000_000 ? patch.slice(0, 1_000_000) : patch;
  for (const m of text.matchAll(re)) {
    const path = m[1]?.trim();
    if (path && !out.includes(path)) out.push(path);
    if (out.length >= 200) break;
  }
  return out;
}

function resolvePath(path: string, cwd: string | null): string {
  if (isAbsolute(path)) return resolve(path);
  return cwd && isAbsolute(cwd) ? resolve(cwd, path) : path;
}

function filesOf(
  kind: EventKind,
  tool: string,
  input: Record<string, unknown> | null,
  response: unknown,
  cwd: string | null,
): NamedFile[] {
  const out: NamedFile[] = [];
  const add = (p: unknown, role: NamedFile['role']) => {
    if (typeof p !== 'string' || p.length === 0 || p.length > 4096 || p.includes('\0')) return;
    const path = resolvePath(p, cwd);
    if (!out.some((f) => f.path === path)) out.push({ path, role });
  };
  if (kind === 'edit') {
    if (tool === 'apply_patch') {
      const patch = stringField(input, 'command', 'input', 'patch');
      for (const p of patch ? patchFiles(patch) : []) add(p, 'edit');
    } else add(stringField(input, 'file_path', 'notebook_path', 'absolute_path', 'path'), 'edit');
  } else if (kind === 'read') {
    add(stringField(input, 'file_path', 'notebook_path', 'absolute_path'), 'read');
  } else if (kind === 'command') {
    // Claude Code lists what a Bash command changed in the repository (tool_response.bashEditDiff).
    const diff = asObject(asObject(response)?.bashEditDiff);
    const changed = diff?.changedFiles;
    if (Array.isArray(changed)) for (const p of changed.slice(0, 200)) add(p, 'edit');
  }
  return out;
}

/** Whether a finished command failed, from the shapes each client documents, and its exit code. */
function commandOutcome(
  phase: Phase,
  response: unknown,
  error: string | null,
): { ok: boolean; exit: number | null } {
  const exitIn = (text: string): number | null => {
    const m = /(?:^|\n)\s*exit(?:ed with)? code:?\s*(-?\d{1,5})/i.exec(text.slice(0, 4000));
    return m ? Number(m[1]) : null;
  };
  if (phase === 'failed') return { ok: false, exit: error ? exitIn(error) : null };
  const o = asObject(response);
  if (o) {
    for (const k of ['exit_code', 'exitCode', 'returncode']) {
      const v = o[k];
      if (typeof v === 'number') return { ok: v === 0, exit: v };
    }
    const err = o.error;
    if ((typeof err === 'string' && err.length > 0) || asObject(err)) return { ok: false, exit: null };
    const content = stringField(o, 'llmContent', 'output', 'stdout');
    const exit = content ? exitIn(content) : null;
    return { ok: exit === null || exit === 0, exit };
  }
  if (typeof response === 'string') {
    const exit = exitIn(response);
    return { ok: exit === null || exit === 0, exit };
  }
  return { ok: true, exit: null };
}

function toolOk(phase: Phase, response: unknown): boolean {
  if (phase === 'failed') return false;
  const err = asObject(response)?.error;
  return !((typeof err === 'string' && err.length > 0) || asObject(err));
}

function describeFiles(files: NamedFile[], cwd: string | null): string {
  const shown = files
    .slice(0, 3)
    .map((f) => (cwd && f.path.startsWith(`${cwd}/`) ? f.path.slice(cwd.length + 1) : f.path));
  return shown.join(', ') + (files.length > 3 ? ` and ${files.length - 3} more` : '');
}

/**
 * Validates a hook payload and turns it into the hub's event. Throws HookPayloadError (a `validation`
 * answer) when the payload is not a hook payload at all: not an object, no event name or session id.
 */
export function normalizeHookPayload(
  raw: unknown,
  clientHint: string | undefined,
  options: NormalizeOptions,
): NormalizedEvent {
  const body = asObject(raw);
  if (!body) throw new HookPayloadError('the body must be a JSON object: the hook input the client sends');
  const event = body.hook_event_name;
  if (typeof event !== 'string' || !EVENT_NAME.test(event))
    throw new HookPayloadError(
      'hook_event_name must be the event name the client sends (letters, digits, _)',
    );
  const session = body.session_id;
  if (typeof session !== 'string' || !SESSION_ID.test(session))
    throw new HookPayloadError(
      'session_id must be the client session id (1 to 200 letters, digits and . _ : @ + = -)',
    );
  const cwd = optionalString(body, 'cwd', 4096);
  const tp = body.transcript_path;
  const transcript =
    typeof tp === 'string' && tp.length <= 4096 && isAbsolute(tp) && !tp.includes('\0') ? tp : null;
  const model = optionalString(body, 'model', 200);
  const toolName = optionalString(body, 'tool_name', 200);
  const client = detectClient(body, clientHint);
  const { redact } = options;
  const detail: Record<string, unknown> = {};
  const subagent = stringField(body, 'agent_type');
  if (subagent) detail.agent_type = clip(subagent, 100);

  const phase = TOOL_PHASE[event];
  if (phase !== undefined) {
    if (!toolName) throw new HookPayloadError(`${event} needs tool_name`);
    const input = asObject(body.tool_input);
    const response = body.tool_response;
    const error = optionalString(body, 'error', 1_000_000);
    const kind = toolKind(toolName);
    const files = filesOf(kind, toolName, input, response, cwd);
    let ok: boolean | null = phase === 'pre' ? null : toolOk(phase, response);
    let summary: string;
    if (kind === 'command') {
      const command = redact.text(stringField(input, 'command') ?? '');
      detail.command = clip(command, 2000);
      const description = stringField(input, 'description');
      if (description) detail.description = clip(redact.text(description), 200);
      if (phase !== 'pre') {
        const outcome = commandOutcome(phase, response, error);
        ok = outcome.ok;
        if (outcome.exit !== null) detail.exit_code = outcome.exit;
        if (!ok && error) detail.error = clip(redact.text(error).slice(-600), 600);
      }
      summary = `$ ${oneLine(command, 160)}`;
      if (files.length > 0) detail.changed_files = files.length;
    } else if (kind === 'edit' || kind === 'read') {
      summary = `${toolName} ${files.length ? describeFiles(files, cwd) : '(no path)'}`;
      // Sizes only: file contents are the repository's, not the hub's to keep.
      for (const k of ['content', 'old_string', 'new_string', 'command']) {
        const v = input?.[k];
        if (typeof v === 'string') detail[`${k}_chars`] = v.length;
      }
      if (Array.isArray(input?.edits)) detail.edits = input.edits.length;
      if (!ok && phase !== 'pre' && error) detail.error = clip(redact.text(error).slice(-600), 600);
    } else {
      summary = toolName;
      if (input) detail.tool_input = capped(input, redact);
      if (phase === 'failed' && error) detail.error = clip(redact.text(error).slice(-600), 600);
    }
    if (typeof body.tool_use_id === 'string') detail.tool_use_id = clip(body.tool_use_id, 100);
    if (typeof body.duration_ms === 'number') detail.duration_ms = body.duration_ms;
    if (phase === 'failed' || ok === false) summary = `${summary} ✗`;
    return {
      client,
      session,
      event,
      kind,
      phase,
      tool: clip(toolName, 200),
      ok,
      cwd,
      model,
      summary: oneLine(summary, 240),
      files,
      detail,
      reason: null,
      transcript,
    };
  }

  const lifecycle = LIFECYCLE[event];
  const kind: EventKind = lifecycle?.kind ?? (OTHER_DOCUMENTED.has(event) ? 'other' : 'unknown');
  let summary: string = event;
  let reason: string | null = null;
  switch (kind) {
    case 'session_start': {
      reason = clip(stringField(body, 'source') ?? 'startup', 40);
      summary = `session started (${reason})${model ? ` · ${model}` : ''}`;
      if (typeof body.permission_mode === 'string') detail.permission_mode = clip(body.permission_mode, 40);
      break;
    }
    case 'session_end':
      reason = clip(stringField(body, 'reason') ?? 'other', 60);
      summary = `session ended (${reason})`;
      break;
    case 'prompt': {
      const prompt = typeof body.prompt === 'string' ? body.prompt : '';
      detail.prompt_chars = prompt.length;
      detail.prompt_sha256 = sha256(prompt);
      if (options.storePrompts) detail.prompt = clip(redact.text(prompt), 4000);
      summary = options.storePrompts
        ? `prompt: ${oneLine(redact.text(prompt), 160)}`
        : `prompt (${prompt.length} characters)`;
      break;
    }
    case 'stop': {
      const last = stringField(body, 'last_assistant_message', 'prompt_response');
      if (last) detail.response_chars = last.length;
      const error = stringField(body, 'error');
      if (event === 'StopFailure' && error) detail.error = clip(redact.text(error), 200);
      summary =
        event === 'StopFailure' ? `turn failed${error ? ` (${clip(error, 60)})` : ''}` : 'turn finished';
      break;
    }
    case 'subagent':
      summary = `${event === 'SubagentStart' ? 'subagent started' : 'subagent finished'}${subagent ? ` (${clip(subagent, 60)})` : ''}`;
      break;
    case 'notification': {
      const message = stringField(body, 'message');
      const type = stringField(body, 'notification_type');
      if (type) detail.notification_type = clip(type, 60);
      if (message) detail.message = clip(redact.text(message), 300);
      summary = `notification: ${oneLine(redact.text(message ?? type ?? ''), 160)}`;
      break;
    }
    case 'compact':
      summary = `context compaction (${clip(stringField(body, 'trigger') ?? 'auto', 20)})`;
      break;
    case 'permission':
      summary = `${event}${toolName ? ` ${toolName}` : ''}`;
      if (toolName) detail.tool_name = clip(toolName, 200);
      break;
    default: {
      // Kept as sent, minus what every payload repeats, so a new event type is visible before the hub knows it.
      const rest: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(body))
        if (
          ![
            'session_id',
            'hook_event_name',
            'cwd',
            'transcript_path',
            'model',
            'timestamp',
            'permission_mode',
          ].includes(k)
        )
          rest[k] = v;
      detail.payload = capped(rest, redact);
      summary = kind === 'unknown' ? `unknown event ${event}` : event;
    }
  }
  return {
    client,
    session,
    event,
    kind,
    phase: null,
    tool: toolName ? clip(toolName, 200) : null,
    ok: null,
    cwd,
    model,
    summary: oneLine(summary, 240),
    files: [],
    detail,
    reason,
    transcript,
  };
}
