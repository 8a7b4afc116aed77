// The recorded payloads are the clients' documented shapes: each fixture has every field its source
// (test/fixtures/hooks/README.md) requires and none the source does not name, and the hub reads each
// one as the event it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeHookPayload } from '../../../server/hooks/normalize.ts';
import { createRedactor } from '../../../server/hooks/redact.ts';
import { type Client, fixture, fixtureNames } from '../../support/hooks.ts';

interface Shape {
  required: string[];
  optional?: string[];
}

// Claude Code hooks reference: common input fields, then each event's.
const CLAUDE_COMMON: Shape = {
  required: ['session_id', 'transcript_path', 'cwd', 'hook_event_name'],
  optional: ['permission_mode', 'prompt_id', 'scratchpad_dir', 'effort', 'agent_id', 'agent_type'],
};
const CLAUDE: Record<string, Shape> = {
  SessionStart: { required: ['source'], optional: ['model', 'agent_type', 'session_title'] },
  UserPromptSubmit: { required: ['prompt'], optional: ['session_title'] },
  PreToolUse: { required: ['tool_name', 'tool_input', 'tool_use_id'], optional: ['mcp_server'] },
  PostToolUse: {
    required: ['tool_name', 'tool_input', 'tool_response', 'tool_use_id'],
    optional: ['duration_ms', 'mcp_server'],
  },
  PostToolUseFailure: {
    required: ['tool_name', 'tool_input', 'tool_use_id', 'error'],
    optional: ['is_interrupt', 'duration_ms', 'mcp_server'],
  },
  Notification: { required: ['message', 'notification_type'], optional: ['title'] },
  Stop: {
    required: ['stop_hook_active', 'last_assistant_message'],
    optional: ['background_tasks', 'session_crons'],
  },
  SubagentStop: {
    required: [
      'stop_hook_active',
      'agent_id',
      'agent_type',
      'agent_transcript_path',
      'last_assistant_message',
    ],
    optional: ['background_tasks', 'session_crons'],
  },
  PreCompact: { required: ['trigger', 'custom_instructions'] },
  SessionEnd: { required: ['reason'] },
  WorktreeCreate: { required: ['name'] },
};
// Claude Code tool inputs (the reference's per-tool tables).
const CLAUDE_TOOLS: Record<string, Shape> = {
  Bash: { required: ['command'], optional: ['description', 'timeout', 'run_in_background'] },
  Edit: { required: ['file_path', 'old_string', 'new_string'], optional: ['replace_all'] },
  Write: { required: ['file_path', 'content'] },
  MultiEdit: { required: ['file_path', 'edits'] },
};

// Codex: the generated command input schemas, every field required, nothing else allowed.
const CODEX_BASE = ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'model', 'permission_mode'];
const CODEX: Record<string, Shape> = {
  SessionStart: { required: [...CODEX_BASE, 'source'] },
  UserPromptSubmit: { required: [...CODEX_BASE, 'turn_id', 'prompt'] },
  PreToolUse: { required: [...CODEX_BASE, 'turn_id', 'tool_name', 'tool_input', 'tool_use_id'] },
  PostToolUse: {
    required: [...CODEX_BASE, 'turn_id', 'tool_name', 'tool_input', 'tool_response', 'tool_use_id'],
  },
  Stop: { required: [...CODEX_BASE, 'turn_id', 'stop_hook_active', 'last_assistant_message'] },
};
const CODEX_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'];

// Gemini CLI hooks reference: base fields, then each event's.
const GEMINI_BASE = ['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'timestamp'];
const GEMINI: Record<string, Shape> = {
  SessionStart: { required: ['source'] },
  SessionEnd: { required: ['reason'] },
  BeforeAgent: { required: ['prompt'] },
  AfterAgent: { required: ['prompt', 'prompt_response', 'stop_hook_active'] },
  BeforeTool: { required: ['tool_name', 'tool_input'], optional: ['mcp_context'] },
  AfterTool: { required: ['tool_name', 'tool_input', 'tool_response'], optional: ['mcp_context'] },
  Notification: { required: ['notification_type', 'message', 'details'] },
  PreCompress: { required: ['trigger'] },
};

function checkKeys(what: string, value: Record<string, unknown>, ...shapes: Shape[]): void {
  const required = shapes.flatMap((s) => s.required);
  const allowed = new Set([...required, ...shapes.flatMap((s) => s.optional ?? [])]);
  for (const k of required) assert.ok(k in value, `${what}: the documented field ${k} is missing`);
  for (const k of Object.keys(value)) assert.ok(allowed.has(k), `${what}: ${k} is not a documented field`);
}

const REPO = '/home/dev/repo';

for (const client of ['claude-code', 'codex', 'gemini'] as Client[]) {
  test(`${client} fixtures have exactly the fields the client documents`, () => {
    const names = fixtureNames(client);
    assert.ok(names.length >= 7, `${client} has fixtures`);
    for (const name of names) {
      const p = fixture(client, name, REPO);
      const event = String(p.hook_event_name);
      const what = `${client}/${name}`;
      if (client === 'claude-code') {
        const shape = CLAUDE[event];
        assert.ok(shape, `${what}: ${event} has a documented shape`);
        checkKeys(what, p, CLAUDE_COMMON, shape);
        const tool = CLAUDE_TOOLS[String(p.tool_name)];
        if (p.tool_input) {
          assert.ok(tool, `${what}: tool ${String(p.tool_name)} has a documented input`);
          checkKeys(`${what} tool_input`, p.tool_input as Record<string, unknown>, tool);
          const path = (p.tool_input as { file_path?: string }).file_path;
          if (path !== undefined) assert.ok(path.startsWith('/'), `${what}: file tools' paths are absolute`);
        }
      } else if (client === 'codex') {
        const shape = CODEX[event];
        assert.ok(shape, `${what}: ${event} has a published schema`);
        checkKeys(what, p, shape);
        assert.ok(
          CODEX_PERMISSION_MODES.includes(String(p.permission_mode)),
          `${what}: permission_mode is in the schema's enum`,
        );
        if (p.tool_input)
          checkKeys(`${what} tool_input`, p.tool_input as Record<string, unknown>, { required: ['command'] });
      } else {
        const shape = GEMINI[event];
        assert.ok(shape, `${what}: ${event} is a documented event`);
        checkKeys(what, p, { required: GEMINI_BASE }, shape);
        assert.ok(!Number.isNaN(Date.parse(String(p.timestamp))), `${what}: timestamp is ISO 8601`);
      }
    }
  });
}

test('every fixture is read as the event it is, whichever client sent it', () => {
  const redact = createRedactor();
  const kinds: Record<string, string> = {};
  for (const client of ['claude-code', 'codex', 'gemini'] as Client[])
    for (const name of fixtureNames(client)) {
      const ev = normalizeHookPayload(fixture(client, name, REPO), undefined, {
        redact,
        storePrompts: false,
      });
      kinds[`${client}/${name}`] =
        `${ev.client} ${ev.kind}${ev.phase ? `/${ev.phase}` : ''}${ev.ok === false ? ' failed' : ''}`;
    }
  assert.deepEqual(kinds, {
    'claude-code/notification': 'unknown notification',
    'claude-code/post-tool-use-edit': 'unknown edit/post',
    'claude-code/post-tool-use-failure-bash': 'unknown command/failed failed',
    'claude-code/post-tool-use-multi-edit': 'unknown edit/post',
    'claude-code/post-tool-use-write': 'unknown edit/post',
    'claude-code/pre-compact': 'unknown compact',
    'claude-code/pre-tool-use-bash': 'unknown command/pre',
    'claude-code/pre-tool-use-edit': 'unknown edit/pre',
    'claude-code/session-end': 'unknown session_end',
    'claude-code/session-start': 'unknown session_start',
    'claude-code/stop': 'unknown stop',
    'claude-code/subagent-stop': 'unknown subagent',
    'claude-code/user-prompt-submit': 'unknown prompt',
    'claude-code/worktree-create': 'unknown other',
    'codex/post-tool-use-apply-patch': 'codex edit/post',
    'codex/post-tool-use-bash': 'codex command/post failed',
    'codex/pre-tool-use-apply-patch': 'codex edit/pre',
    'codex/pre-tool-use-bash': 'codex command/pre',
    'codex/session-start': 'unknown session_start',
    'codex/stop': 'codex stop',
    'codex/user-prompt-submit': 'codex prompt',
    'gemini/after-agent': 'gemini stop',
    'gemini/after-tool-replace': 'gemini edit/post',
    'gemini/after-tool-shell-failed': 'gemini command/post failed',
    'gemini/before-agent': 'gemini prompt',
    'gemini/before-tool-write-file': 'gemini edit/pre',
    'gemini/notification': 'gemini notification',
    'gemini/pre-compress': 'gemini compact',
    'gemini/session-end': 'gemini session_end',
    'gemini/session-start': 'gemini session_start',
  });
});
