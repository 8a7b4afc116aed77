// What the hub answers a hook, in the JSON output each client documents: `{}` for most events (no
// decision: the agent goes on as if no hook ran), context on SessionStart that names the agent's session
// on the hub, and on an edit that conflicts, a warning or a refusal in the client's own decision format.
import type { HookClient, NormalizedEvent } from './normalize.ts';
import type { ConflictMode } from './settings.ts';

export type HookAnswer = Record<string, unknown>;

/** SessionStart context: how the agent links its MCP calls and claims to this hook session. */
export function sessionContext(session: string): string {
  return `cos hub: this session is agent_session "${session}" on the hub. Pass agent_session: "${session}" to cos_task_claim_next, cos_task_move and cos_work_log_append so your MCP calls and claims count as this agent.`;
}

export function answerFor(
  ev: NormalizedEvent,
  conflict: { mode: ConflictMode; message: string } | null,
): HookAnswer {
  if (ev.kind === 'session_start') {
    return { hookSpecificOutput: { hookEventName: ev.event, additionalContext: sessionContext(ev.session) } };
  }
  if (conflict === null || conflict.mode === 'off') return {};
  return conflictAnswer(ev.client, ev.event, conflict.mode, conflict.message);
}

function conflictAnswer(
  client: HookClient,
  event: string,
  mode: 'warn' | 'block',
  message: string,
): HookAnswer {
  if (client === 'gemini') {
    // BeforeTool: `decision: "deny"` with a reason the agent receives; a warning can only reach the user.
    return mode === 'block' ? { decision: 'deny', reason: message } : { systemMessage: message };
  }
  // Claude Code and Codex share PreToolUse's hookSpecificOutput: permissionDecision "deny" refuses the
  // call and shows the reason to the model; a warning goes to the model as additionalContext (and to the
  // user as systemMessage) without taking a permission decision, so the normal permission flow applies.
  if (mode === 'block') {
    return {
      hookSpecificOutput: {
        hookEventName: event,
        permissionDecision: 'deny',
        permissionDecisionReason: message,
      },
    };
  }
  return { systemMessage: message, hookSpecificOutput: { hookEventName: event, additionalContext: message } };
}

/**
 * `answer` with `context` for the model added in the client's own format, or null when this answer
 * cannot carry it to the model: Gemini CLI's BeforeTool reads only a refusal's reason (a systemMessage
 * reaches the user alone). A refusal carries it in its reason (Claude Code and Codex:
 * permissionDecisionReason; Gemini CLI: reason), which the model reads; any other answer in
 * hookSpecificOutput.additionalContext (every client: SessionStart, UserPromptSubmit/BeforeAgent,
 * PostToolUse/AfterTool, and Claude Code's and Codex's PreToolUse), after what it already says.
 */
export function withContext(ev: NormalizedEvent, answer: HookAnswer, context: string): HookAnswer | null {
  const join = (before: unknown) =>
    typeof before === 'string' && before !== '' ? `${before}\n\n${context}` : context;
  if (ev.client === 'gemini') {
    if (answer.decision === 'deny') return { ...answer, reason: join(answer.reason) };
    if (ev.phase === 'pre') return null;
  }
  const out = (answer.hookSpecificOutput ?? {}) as Record<string, unknown>;
  if (out.permissionDecision === 'deny')
    return {
      ...answer,
      hookSpecificOutput: { ...out, permissionDecisionReason: join(out.permissionDecisionReason) },
    };
  return {
    ...answer,
    hookSpecificOutput: { ...out, hookEventName: ev.event, additionalContext: join(out.additionalContext) },
  };
}
