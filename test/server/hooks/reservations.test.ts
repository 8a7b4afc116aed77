// File reservations on a real hub with agents of three clients posting their hook payloads as the
// clients send them, and MCP calls through the official SDK client: a reservation granted, refused with
// who holds what, extended by its holder; every client's edit tool warned and refused per the
// `conflicts` setting (naming the holder, its reason, task and expiry, and how to ask), shell writes only
// warned; reservations ending by time, by SessionEnd and by their task's completion; another's refused
// to an agent and released by a person (on the holder's timeline); bad paths are `validation`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HubEvent } from '../../../server/events/bus.ts';
import { fixture } from '../../support/hooks.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

let clock = Date.parse('2026-11-30T12:00:00Z');
let t: TestHub;
let mcp: Client;
const outside = mkdtempSync(join(tmpdir(), 'cos-outside-'));
const seen: HubEvent[] = [];

// Three agents, one per client: the session ids their clients give them.
const HOLDER = 'c1a0de00-6b1d-4c7e-9f3a-2d5b7c9e0a11'; // claude-code
const CODEX = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
const GEMINI = '5d3f2a1b-9c8e-4f7a-b6d5-e4c3b2a19087';
const OTHER = 'b0b0b0b0-1111-4222-8333-444455556666'; // a second claude-code

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { category: string; message: string };
}
interface Reservation {
  id: string;
  holder: string;
  holder_label: string;
  paths: string[];
  reason: string;
  task_id: string | null;
  exclusive: boolean;
  expires_at: number;
}
interface ReserveResult {
  granted: boolean;
  extended?: boolean;
  reservation?: Reservation;
  conflicts?: {
    path: string;
    held: string;
    holder: string;
    holder_label: string;
    reason: string;
    task_id: string | null;
    expires_at: number;
  }[];
  not_granted?: string[];
  message: string;
}
interface HookAnswer {
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    additionalContext?: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
  };
}

async function tool<T>(name: string, args: Record<string, unknown>): Promise<Envelope<T>> {
  const result = await mcp.callTool({ name, arguments: args });
  const env = result.structuredContent as unknown as Envelope<T>;
  assert.equal(result.isError, !env.ok);
  return env;
}

const rest = async <T>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
  const res = await t.app.inject({
    method,
    url,
    headers: { host: '127.0.0.1' },
    ...(payload ? { payload } : {}),
  });
  return {
    status: res.statusCode,
    body: res.json() as Envelope<T> & { error?: { category: string; message: string } },
  };
};

/** Posts a hook payload as the client's hook does (the http hook, or the hook script's POST). */
async function hook(client: 'claude-code' | 'codex' | 'gemini', payload: Record<string, unknown>) {
  const res = await fetch(`${t.url}/api/hooks/events?client=${client}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  return (text.trim() === '' ? {} : JSON.parse(text)) as HookAnswer;
}

const file = (p: string) => `${t.dir}/${p}`;

/** Each client's edit tool, pre-phase, on `path`, by `session`. */
function edits(path: string, session?: string) {
  const claude = (tool_name: string, tool_input: Record<string, unknown>) =>
    fixture('claude-code', 'pre-tool-use-edit', t.dir, {
      session_id: session ?? OTHER,
      tool_name,
      tool_input,
    });
  return {
    'claude-code Edit': [
      'claude-code',
      claude('Edit', { file_path: file(path), old_string: 'a', new_string: 'b' }),
    ],
    'claude-code Write': ['claude-code', claude('Write', { file_path: file(path), content: 'x' })],
    'claude-code MultiEdit': [
      'claude-code',
      claude('MultiEdit', { file_path: file(path), edits: [{ old_string: 'a', new_string: 'b' }] }),
    ],
    'claude-code NotebookEdit': [
      'claude-code',
      claude('NotebookEdit', { notebook_path: file(path), new_source: 'print(1)' }),
    ],
    'codex apply_patch': [
      'codex',
      fixture('codex', 'pre-tool-use-apply-patch', t.dir, {
        ...(session ? { session_id: session } : {}),
        tool_input: { command: `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n` },
      }),
    ],
    'gemini write_file': [
      'gemini',
      fixture('gemini', 'before-tool-write-file', t.dir, {
        ...(session ? { session_id: session } : {}),
        tool_input: { file_path: file(path), content: 'x' },
      }),
    ],
    'gemini replace': [
      'gemini',
      fixture('gemini', 'before-tool-write-file', t.dir, {
        ...(session ? { session_id: session } : {}),
        tool_name: 'replace',
        tool_input: { file_path: file(path), old_string: 'a', new_string: 'b' },
      }),
    ],
  } as const satisfies Record<string, readonly ['claude-code' | 'codex' | 'gemini', Record<string, unknown>]>;
}

const setMode = (conflicts: string) => rest('PATCH', '/api/settings/hooks', { conflicts });
const live = async (query = '') =>
  (await rest<{ entries: Reservation[] }>('GET', `/api/files/reservations${query}`)).body.data.entries;
const until = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

before(async () => {
  t = await startTestHub({ listen: true, now: () => clock, env: { COS_RATE_LIMIT_RPS: '0' } });
  await t.hub.services.board.start();
  t.hub.events.subscribe((e) => {
    if (e.type === 'reservation-updated') seen.push(e);
  });
  mkdirSync(join(t.dir, 'src', 'auth'), { recursive: true });
  writeFileSync(join(t.dir, 'src', 'auth', 'login.ts'), 'export {};\n');
  symlinkSync(outside, join(t.dir, 'src', 'out'));
  for (const [client, name] of [
    ['claude-code', 'session-start'],
    ['codex', 'session-start'],
    ['gemini', 'before-agent'],
  ] as const)
    await hook(client, fixture(client, name, t.dir, client === 'claude-code' ? { session_id: HOLDER } : {}));
  await hook('claude-code', fixture('claude-code', 'session-start', t.dir, { session_id: OTHER }));
  mcp = await connectClient(t.url);
});
after(async () => {
  await mcp?.close();
  await t.close();
  rmSync(outside, { recursive: true, force: true });
});

describe('granting', () => {
  test('granted over MCP, then refused to another agent with who holds it, why, its task and until when', async () => {
    const task = (await rest<{ task: { id: string } }>('POST', '/api/board/tasks', { title: 'Auth' })).body
      .data.task.id;
    const granted = await tool<ReserveResult>('cos_files_reserve', {
      agent_session: HOLDER,
      paths: ['src/auth', './docs/guide.md'],
      reason: 'refactor auth',
      task_id: task,
    });
    assert.equal(granted.ok, true);
    assert.equal(granted.data.granted, true);
    const r = granted.data.reservation!;
    assert.deepEqual(r.paths, ['src/auth/', 'docs/guide.md'], 'an existing directory holds what is under it');
    assert.equal(r.holder_label, 'claude-code c1a0de00');
    assert.equal(r.task_id, task);
    assert.equal(r.exclusive, true);
    assert.equal(r.expires_at, clock + 3600_000, 'an hour by default');
    assert.match(r.id, /^R-[0-9a-f]{10}$/);

    const refused = await tool<ReserveResult>('cos_files_reserve', {
      agent_session: OTHER,
      paths: ['src/**/*.ts'],
      reason: 'rename helpers',
    });
    assert.equal(refused.ok, true, 'not granted is an answer, not an error');
    assert.equal(refused.data.granted, false);
    assert.equal(refused.data.reservation, undefined);
    assert.deepEqual(
      refused.data.conflicts?.map((c) => [
        c.path,
        c.held,
        c.holder,
        c.holder_label,
        c.reason,
        c.task_id,
        c.expires_at,
      ]),
      [['src/**/*.ts', 'src/auth/', HOLDER, 'claude-code c1a0de00', 'refactor auth', task, r.expires_at]],
    );
    assert.match(refused.data.message, new RegExp(`cos_message_send to "${HOLDER}"`));
    assert.equal((await live()).length, 1, 'a refusal reserved nothing');
    assert.ok(seen.some((e) => (e.data as { change: string }).change === 'granted'));
  });

  test('reserving again extends and merges the holder’s own hold; shared holds meet only exclusive ones', async () => {
    const before = (await live())[0]!;
    clock += 10 * 60_000;
    const again = await tool<ReserveResult>('cos_files_reserve', {
      agent_session: HOLDER,
      paths: ['src/auth/**', 'src/auth/session.ts'],
      reason: 'refactor auth, sessions too',
      ttl_seconds: 7200,
    });
    assert.equal(again.data.granted, true);
    assert.equal(again.data.extended, true);
    assert.equal(again.data.reservation?.id, before.id, 'one reservation, not two');
    assert.deepEqual(again.data.reservation?.paths, [
      'src/auth/',
      'docs/guide.md',
      'src/auth/**',
      'src/auth/session.ts',
    ]);
    assert.equal(again.data.reservation?.expires_at, clock + 7200_000);
    assert.equal(again.data.reservation?.task_id, before.task_id, 'still tied to its task');
    assert.equal((await live()).length, 1);

    const shared = { paths: ['notes/'], reason: 'reading notes', exclusive: false };
    assert.equal(
      (await tool<ReserveResult>('cos_files_reserve', { agent_session: CODEX, ...shared })).data.granted,
      true,
    );
    assert.equal(
      (await tool<ReserveResult>('cos_files_reserve', { agent_session: GEMINI, ...shared })).data.granted,
      true,
    );
    const exclusive = await tool<ReserveResult>('cos_files_reserve', {
      agent_session: OTHER,
      paths: ['notes/todo.md'],
      reason: 'rewrite todo',
    });
    assert.equal(exclusive.data.granted, false);
    assert.deepEqual(exclusive.data.conflicts?.map((c) => c.holder).sort(), [CODEX, GEMINI].sort());
    const mine = await live(`?agent=${CODEX}`);
    assert.deepEqual(
      mine.map((x) => x.paths),
      [['notes/']],
    );
    assert.deepEqual((await live('?path=notes/todo.md')).length, 2, 'who holds a file');
    for (const id of [CODEX, GEMINI])
      assert.equal((await tool('cos_files_release', { agent_session: id, paths: ['notes/'] })).ok, true);
  });

  test('a path outside the repository, a symlink out of it, an empty list or a bad TTL is validation', async () => {
    for (const [args, message] of [
      [{ paths: ['../elsewhere.ts'] }, /outside the repository/],
      [{ paths: [`${outside}/x.ts`] }, /outside the repository/],
      [{ paths: ['src/out/x.ts'] }, /outside the repository once links are followed/],
      [{ paths: ['src/out/**'] }, /outside the repository once links are followed/],
      [{ paths: [] }, /paths/],
      [{ paths: ['.'] }, /names the repository itself/],
      [{ paths: ['!src/x.ts'] }, /negated/],
      [{ paths: ['src/x.ts'], ttl_seconds: 4 }, /ttl_seconds/],
      [{ paths: ['src/x.ts'], ttl_seconds: 86_401 }, /ttl_seconds/],
    ] as const) {
      const r = await tool('cos_files_reserve', { agent_session: OTHER, reason: 'x', ...args });
      assert.equal(r.ok, false, JSON.stringify(args));
      assert.equal(r.error?.category, 'validation', JSON.stringify(args));
      assert.match(r.error!.message, message);
      assert.doesNotMatch(r.error!.message, new RegExp(outside), 'no absolute path outside is echoed');
    }
  });
});

describe('enforced where agents act', () => {
  test('warn: every client’s edit tool on a reserved path is warned, naming holder, reason, task, expiry and how to ask', async () => {
    await setMode('warn');
    const r = (await live())[0]!;
    for (const [name, [client, payload]] of Object.entries(edits('src/auth/login.ts'))) {
      const answer = await hook(client, payload);
      const text = client === 'gemini' ? answer.systemMessage : answer.hookSpecificOutput?.additionalContext;
      assert.ok(text, `${name}: warned`);
      assert.match(
        text,
        /src\/auth\/login\.ts \(src\/auth\/\) is reserved by claude-code c1a0de00 for "refactor auth, sessions too"/,
        name,
      );
      assert.match(text, new RegExp(`\\(${r.task_id}\\) until ${until(r.expires_at)}`), name);
      assert.match(text, new RegExp(`cos_message_send to "${HOLDER}"`), name);
      assert.equal(answer.hookSpecificOutput?.permissionDecision, undefined, `${name}: no decision taken`);
      assert.equal(answer.decision, undefined, name);
    }
    // The holder itself edits freely; a file nobody holds is no one's business.
    for (const [name, [client, payload]] of Object.entries(edits('src/auth/login.ts', HOLDER)))
      if (client === 'claude-code') assert.deepEqual(await hook(client, payload), {}, name);
    assert.deepEqual(await hook(...edits('src/free.ts')['claude-code Edit']), {});
  });

  test('block: the same edits are refused in each client’s format; off: nothing is said', async () => {
    await setMode('block');
    for (const [name, [client, payload]] of Object.entries(edits('src/auth/session.ts'))) {
      const answer = await hook(client, payload);
      if (client === 'gemini') {
        assert.equal(answer.decision, 'deny', name);
        assert.match(String(answer.reason), /reserved by claude-code c1a0de00/, name);
      } else {
        assert.equal(answer.hookSpecificOutput?.permissionDecision, 'deny', name);
        assert.match(
          String(answer.hookSpecificOutput?.permissionDecisionReason),
          /reserved by claude-code c1a0de00/,
          name,
        );
      }
    }
    const refused = (
      await rest<{ entries: { ok: boolean; summary: string; agent: string }[] }>(
        'GET',
        `/api/agents/activity?kind=conflict&agent=${OTHER}&limit=50`,
      )
    ).body.data.entries;
    assert.ok(
      refused.some(
        (e) => !e.ok && /^refused: src\/auth\/session\.ts .*reserved by claude-code c1a0de00/.test(e.summary),
      ),
    );
    await setMode('off');
    assert.deepEqual(await hook(...edits('src/auth/session.ts')['claude-code Edit']), {});
    await setMode('warn');
  });

  test('shell writes to a reserved path are warned, even in block mode; reads and other paths are not', async () => {
    await setMode('block');
    const bash = (command: string, client: 'claude-code' | 'codex' = 'claude-code') =>
      hook(
        client,
        fixture(client, 'pre-tool-use-bash', t.dir, {
          ...(client === 'claude-code' ? { session_id: OTHER } : {}),
          tool_input: { command },
        }),
      );
    for (const command of [
      'echo export {} > src/auth/new.ts',
      'printf x >> src/auth/login.ts 2>&1',
      "sed -i 's/a/b/' src/auth/login.ts",
      'mv src/auth/login.ts src/login.ts',
      'rm -rf src/auth',
      'git diff | tee docs/guide.md',
    ]) {
      const answer = await bash(command);
      assert.match(
        String(answer.systemMessage),
        /this command writes files others reserved: .*claude-code c1a0de00/,
        command,
      );
      assert.equal(answer.hookSpecificOutput?.permissionDecision, undefined, `${command}: never refused`);
    }
    const codex = await bash("sed -i -e 's/x/y/' src/auth/session.ts", 'codex');
    assert.match(String(codex.systemMessage), /src\/auth\/session\.ts .*reserved by claude-code c1a0de00/);
    for (const command of [
      'cat src/auth/login.ts',
      'grep -r token src/auth',
      'echo hi > src/free.ts',
      'npm test',
    ])
      assert.deepEqual(await bash(command), {}, command);
    await setMode('warn');
  });
});

describe('how reservations end', () => {
  test('by time: past expires_at nothing holds, the list drops it, and the sweep says it expired', async () => {
    const short = await tool<ReserveResult>('cos_files_reserve', {
      agent_session: CODEX,
      paths: ['lib/short.ts'],
      reason: 'quick fix',
      ttl_seconds: 5,
    });
    assert.equal(short.data.granted, true);
    assert.match(
      String((await hook(...edits('lib/short.ts')['claude-code Edit'])).systemMessage),
      /quick fix/,
    );
    clock += 6000;
    assert.deepEqual(await hook(...edits('lib/short.ts')['claude-code Edit']), {}, 'lapsed');
    assert.equal((await live(`?agent=${CODEX}`)).length, 0);
    assert.equal(await t.hub.services.reservations.sweep(), 1);
    const expired = seen.find(
      (e) =>
        (e.data as { change: string; reservation: { id: string } }).reservation.id ===
          short.data.reservation?.id && (e.data as { change: string }).change === 'expired',
    );
    assert.ok(expired, 'reservation-updated expired');
    // Another agent may have it now.
    assert.equal(
      (
        await tool<ReserveResult>('cos_files_reserve', {
          agent_session: OTHER,
          paths: ['lib/short.ts'],
          reason: 'mine now',
        })
      ).data.granted,
      true,
    );
  });

  test('by SessionEnd: the holder’s reservations end with its session', async () => {
    const ender = 'e4d00000-0000-4000-8000-00000000e4d0';
    await hook('claude-code', fixture('claude-code', 'session-start', t.dir, { session_id: ender }));
    assert.equal(
      (
        await tool<ReserveResult>('cos_files_reserve', {
          agent_session: ender,
          paths: ['ender/'],
          reason: 'leaving soon',
        })
      ).data.granted,
      true,
    );
    await hook('claude-code', fixture('claude-code', 'session-end', t.dir, { session_id: ender }));
    await waitFor(
      async () => (await live(`?agent=${ender}`)).length === 0,
      'the ended session’s reservation to go',
    );
    const ended = seen.find(
      (e) =>
        (e.data as { reservation: { holder: string }; reason?: string }).reservation.holder === ender &&
        (e.data as { reason?: string }).reason === 'its session ended',
    );
    assert.ok(ended);
  });

  test('by silence past the claim grace, judged as claims are', async () => {
    const quiet = 'a0a0a0a0-0000-4000-8000-0000000a0a0a';
    await hook('claude-code', fixture('claude-code', 'session-start', t.dir, { session_id: quiet }));
    assert.equal(
      (
        await tool<ReserveResult>('cos_files_reserve', {
          agent_session: quiet,
          paths: ['quiet/'],
          reason: 'thinking',
          ttl_seconds: 86_400,
        })
      ).data.granted,
      true,
    );
    clock += 20 * 60_000;
    await t.hub.services.reservations.sweep();
    assert.equal((await live(`?agent=${quiet}`)).length, 1, 'within the grace');
    clock += 11 * 60_000;
    // The others speak up meanwhile, so only the quiet one is past the 30 minutes.
    for (const s of [HOLDER, OTHER])
      await hook('claude-code', fixture('claude-code', 'user-prompt-submit', t.dir, { session_id: s }));
    await t.hub.services.reservations.sweep();
    assert.equal((await live(`?agent=${quiet}`)).length, 0, 'silent past the grace');
    assert.ok((await live(`?agent=${HOLDER}`)).length > 0, 'a live holder keeps its own');
  });

  test('by task completion: claim_next with reserve ties the files to the task; completing it ends them', async () => {
    const task = (
      await rest<{ task: { id: string } }>('POST', '/api/board/tasks', {
        title: 'Billing',
        labels: ['ready'],
      })
    ).body.data.task.id;
    const claimed = await tool<{ claimed: boolean; task: { id: string }; reservation: ReserveResult }>(
      'cos_task_claim_next',
      {
        agent_session: CODEX,
        reserve: ['billing/', 'src/auth/login.ts'],
        reserve_reason: 'billing rework',
      },
    );
    assert.equal(claimed.ok, true);
    assert.equal(claimed.data.claimed, true, 'the claim stands');
    assert.equal(claimed.data.task.id, task);
    const r = claimed.data.reservation;
    assert.equal(r.granted, true, 'the free paths are reserved');
    assert.deepEqual(r.reservation?.paths, ['billing/']);
    assert.equal(r.reservation?.task_id, task);
    assert.deepEqual(r.not_granted, ['src/auth/login.ts'], 'the held path is named, not taken');
    assert.match(r.message, /claude-code c1a0de00/);

    const bad = await tool('cos_task_claim_next', { agent_session: CODEX, reserve: ['../x'] });
    assert.equal(bad.error?.category, 'validation', 'a bad path claims nothing');

    const moved = await rest('POST', `/api/board/tasks/${task}/move`, {
      to: 'complete',
      agent_session: CODEX,
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await waitFor(
      async () => (await live(`?agent=${CODEX}`)).length === 0,
      'the completed task’s reservation to go',
    );
    assert.ok(seen.some((e) => (e.data as { reason?: string }).reason === `its task ${task} is complete`));
  });

  test('cos_task_move to in_progress with reserve reserves for the claimant; reserve with another move is validation', async () => {
    const task = (await rest<{ task: { id: string } }>('POST', '/api/board/tasks', { title: 'Search' })).body
      .data.task.id;
    const wrong = await tool('cos_task_move', {
      id: task,
      to: 'blocked',
      agent_session: GEMINI,
      reserve: ['search/'],
    });
    assert.equal(wrong.error?.category, 'validation');
    const moved = await tool<{ task: { status: string }; reservation: ReserveResult }>('cos_task_move', {
      id: task,
      to: 'in_progress',
      agent_session: GEMINI,
      reserve: ['search/'],
    });
    assert.equal(moved.data.task.status, 'in_progress');
    assert.equal(moved.data.reservation.granted, true);
    assert.equal(moved.data.reservation.reservation?.task_id, task);
    assert.equal(moved.data.reservation.reservation?.holder_label, 'gemini 5d3f2a1b');
  });
});

describe('releasing', () => {
  test('an agent releases its own; another’s is refused naming who holds it; a person may release any, on the holder’s timeline', async () => {
    const held = (await live(`?agent=${HOLDER}`))[0]!;
    const theirs = await tool('cos_files_release', { agent_session: OTHER, id: held.id });
    assert.equal(theirs.ok, false);
    assert.equal(theirs.error?.category, 'permission');
    assert.match(theirs.error!.message, /held by claude-code c1a0de00 for "refactor auth, sessions too"/);
    assert.match(theirs.error!.message, new RegExp(`cos_message_send to "${HOLDER}"`));
    const byPaths = await tool('cos_files_release', { agent_session: OTHER, paths: ['src/auth/'] });
    assert.equal(byPaths.error?.category, 'permission', 'by paths too');

    const own = await tool<{ released: { id: string; paths: string[]; ended: boolean }[] }>(
      'cos_files_release',
      {
        agent_session: HOLDER,
        paths: ['docs/guide.md'],
      },
    );
    assert.deepEqual(own.data.released, [
      {
        id: held.id,
        holder: HOLDER,
        holder_label: 'claude-code c1a0de00',
        paths: ['docs/guide.md'],
        ended: false,
      },
    ]);
    assert.deepEqual((await live(`?agent=${HOLDER}`))[0]?.paths, [
      'src/auth/',
      'src/auth/**',
      'src/auth/session.ts',
    ]);

    const person = await rest<{ released: { id: string; ended: boolean }[] }>('POST', '/api/files/release', {
      id: held.id,
    });
    assert.equal(person.status, 200, JSON.stringify(person.body));
    assert.deepEqual(
      person.body.data.released.map((r) => [r.id, r.ended]),
      [[held.id, true]],
    );
    assert.deepEqual(await hook(...edits('src/auth/login.ts')['claude-code Edit']), {}, 'free again');
    const timeline = (
      await rest<{ entries: { kind: string; summary: string }[] }>(
        'GET',
        `/api/agents/activity?agent=${HOLDER}&kind=reservation`,
      )
    ).body.data.entries;
    assert.ok(
      timeline.some((e) => /ended: released by a person on the hub page/.test(e.summary)),
      JSON.stringify(timeline.map((e) => e.summary)),
    );
    const gone = await rest('POST', '/api/files/release', { id: held.id });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error?.category, 'not_found');
  });
});

async function waitFor(check: () => Promise<boolean>, what: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
