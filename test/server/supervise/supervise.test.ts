import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import pino, { type Logger } from 'pino';
import { ToolError } from '../../../server/errors.ts';
import { BundleSchema } from '../../../server/supervise/bundle.ts';
import { createSuperviseService } from '../../../server/supervise/service.ts';
import { bundleTool } from '../../../server/tools/supervise/bundle.ts';
import { superviseTools } from '../../../server/tools/supervise/index.ts';
import { RecordOutputInputSchema, recordOutputTool } from '../../../server/tools/supervise/record-output.ts';
import { roleOutputsTool } from '../../../server/tools/supervise/role-outputs.ts';
import { rolesTool } from '../../../server/tools/supervise/roles.ts';
import { makeTestHub } from '../memory/test-context.ts';

function setup(logger?: Logger) {
  const hub = makeTestHub(({ ctx }) => ({
    supervise: createSuperviseService({
      agentDir: ctx.config.agentDir,
      stateDir: ctx.config.stateDir,
      logger: logger ?? ctx.logger,
    }),
  }));
  const agentDir = hub.ctx.config.agentDir;
  return {
    hub,
    agentDir,
    record: (input: Record<string, unknown>) =>
      hub.call<{ seq: number; slot_size: number; counts: Record<string, number> }>(recordOutputTool, input),
    bundle: (input: Record<string, unknown>) => hub.call<Record<string, unknown>>(bundleTool, input),
  };
}

const OUTPUTS: Record<string, Record<string, unknown>> = {
  researcher: { summary: 'Looked around', findings: ['WAL is on'], sources: [{ ref: 'server/db/open.ts' }] },
  analyst: { summary: 'It is fine', findings: ['no risk'] },
  architect: { summary: 'Keep it', decisions: [{ title: 'Keep SQLite', rationale: 'Works' }] },
  implementer: { summary: 'Changed two files', files_changed: ['a.ts', 'b.ts'] },
  reviewer: { summary: 'Looks good', verdict: 'approve', issues: [] },
  tester: { summary: 'All green', passed: 12, failed: 0 },
};
const ROLES = Object.keys(OUTPUTS);

async function rejectsWith(p: Promise<unknown>, category: string, pattern?: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ToolError, String(err));
    assert.equal(err.category, category);
    if (pattern) assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\/tmp\//, 'no absolute paths in messages');
    return true;
  });
}

describe('supervise tools', () => {
  test('module supervise, layer audit, closed inputs, REST bindings for roles', () => {
    assert.deepEqual(
      superviseTools.map((t) => [t.name, t.http?.method, t.http?.path]),
      [
        ['cos_supervise_record_output', 'POST', '/api/supervise/sessions/:session_id/outputs'],
        ['cos_supervise_bundle', 'GET', '/api/supervise/sessions/:session_id/bundle'],
        ['cos_supervise_roles', 'GET', '/api/roles'],
        ['cos_supervise_role_outputs', 'GET', '/api/roles/:role/outputs'],
      ],
    );
    for (const t of superviseTools) {
      assert.equal(t.module, 'supervise');
      assert.equal(t.layer, 'audit');
      assert.equal(t.input.additionalProperties, false);
    }
  });

  test('50 concurrent records on one session leave a valid bundle holding all 50', async () => {
    const s = setup();
    try {
      const calls = Array.from({ length: 50 }, (_, i) => {
        const role = ROLES[i % ROLES.length]!;
        return s.record({
          session_id: 'run-50',
          role,
          output: { ...OUTPUTS[role], n: i },
          status: 'ok',
          latency_ms: i,
          discoveries: [`d${i}`],
        });
      });
      const answers = await Promise.all(calls);
      assert.deepEqual(
        answers.map((a) => a.seq).sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      const file = join(s.agentDir, 'evidence_bundle_run-50.json');
      const bundle: unknown = JSON.parse(readFileSync(file, 'utf8'));
      assert.ok(Value.Check(BundleSchema, bundle));
      const all = Object.values(bundle.slots).flat();
      assert.equal(all.length, 50);
      assert.equal(bundle.seq, 50);
      assert.deepEqual(
        all.map((e) => (e.output as { n: number }).n).sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i),
      );
      assert.equal(bundle.discoveries.length, 50);
      for (const role of ROLES) assert.ok(bundle.slots[role]!.length >= 8, role);
      // Temp files never outlive a write.
      assert.deepEqual(
        readdirSync(s.agentDir).filter((f) => f.includes('.tmp-')),
        [],
      );
    } finally {
      s.hub.cleanup();
    }
  });

  test('an output that does not fit its role answers validation naming the field', async () => {
    const s = setup();
    try {
      const base = { session_id: 'run-v', status: 'ok', latency_ms: 5 };
      await rejectsWith(
        s.record({ ...base, role: 'reviewer', output: { summary: 'x', issues: [] } }),
        'validation',
        /output\.verdict/,
      );
      await rejectsWith(
        s.record({ ...base, role: 'tester', output: { summary: 'x', passed: 1, failed: -1 } }),
        'validation',
        /output\.failed/,
      );
      await rejectsWith(
        s.record({
          ...base,
          role: 'reviewer',
          output: { summary: 'x', verdict: 'approve', issues: [{ severity: 'huge', message: 'm' }] },
        }),
        'validation',
        /output\.issues\.0\.severity/,
      );
      await rejectsWith(
        s.record({ ...base, role: 'astrologer', output: { summary: 'x' } }),
        'validation',
        /unknown role/,
      );
      assert.ok(
        !existsSync(join(s.agentDir, 'evidence_bundle_run-v.json')),
        'nothing written for refused outputs',
      );
    } finally {
      s.hub.cleanup();
    }
  });

  test('fail and timeout are recorded as degraded without schema checks; backtracks accumulate', async () => {
    const s = setup();
    try {
      await s.record({
        session_id: 'run-d',
        role: 'tester',
        output: { error: 'crashed' },
        status: 'fail',
        latency_ms: 10,
      });
      await s.record({
        session_id: 'run-d',
        role: 'analyst',
        output: {},
        status: 'timeout',
        latency_ms: 60_000,
      });
      const r = await s.record({
        session_id: 'run-d',
        role: 'reviewer',
        output: {
          summary: 'Back to design',
          verdict: 'request_changes',
          issues: [{ severity: 'blocker', message: 'no' }],
        },
        status: 'ok',
        latency_ms: 3,
        backtrack: { reason: 'design flaw', to_role: 'architect' },
      });
      assert.deepEqual(r.counts, { outputs: 3, backtracks: 1, discoveries: 0, degraded_formulas: 2 });
      const b = await s.bundle({ session_id: 'run-d' });
      assert.deepEqual(
        (b.degraded_formulas as { role: string; status: string }[]).map((d) => [d.role, d.status]),
        [
          ['tester', 'fail'],
          ['analyst', 'timeout'],
        ],
      );
      assert.deepEqual((b.backtracks as { to_role: string }[])[0]?.to_role, 'architect');
      assert.deepEqual(Object.keys(b.slots as object).sort(), [...ROLES].sort());
    } finally {
      s.hub.cleanup();
    }
  });

  test('a corrupt bundle answers internal with an error id and is moved aside, never overwritten', async () => {
    const logged: string[] = [];
    const s = setup(pino({ level: 'error' }, { write: (line: string) => logged.push(line) }));
    try {
      mkdirSync(s.agentDir, { recursive: true });
      const file = join(s.agentDir, 'evidence_bundle_run-c.json');
      writeFileSync(file, '{"version": 1, "slots": {tru');
      const input = {
        session_id: 'run-c',
        role: 'analyst',
        output: OUTPUTS.analyst,
        status: 'ok',
        latency_ms: 1,
      };
      const err = await s.record(input).catch((e: unknown) => e);
      assert.ok(err instanceof ToolError && err.category === 'internal');
      assert.match(
        err.message,
        /moved aside as evidence_bundle_run-c\.json\.corrupt-.*error id E-[0-9a-z]+-[0-9a-f]{6}/,
      );
      assert.doesNotMatch(err.message, /\/tmp\//);
      // The log carries the same id, with the file and what was wrong with it.
      const errorId = /error id (E-[0-9a-z-]+)/.exec(err.message)?.[1];
      const line = logged
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.errorId === errorId);
      assert.ok(line, 'a log line with the error id');
      assert.match(String(line.problem), /not JSON/);
      const aside = readdirSync(s.agentDir).filter((f) =>
        f.startsWith('evidence_bundle_run-c.json.corrupt-'),
      );
      assert.equal(aside.length, 1);
      assert.equal(readFileSync(join(s.agentDir, aside[0]!), 'utf8'), '{"version": 1, "slots": {tru');
      assert.ok(!existsSync(file));
      // The next record starts a fresh bundle beside the preserved one.
      const r = await s.record(input);
      assert.equal(r.seq, 1);
      assert.ok(Value.Check(BundleSchema, JSON.parse(readFileSync(file, 'utf8'))));

      // Valid JSON of the wrong shape (or another session's bundle) is corrupt too.
      writeFileSync(file, JSON.stringify({ hello: 'world' }));
      await rejectsWith(s.bundle({ session_id: 'run-c' }), 'internal', /error id/);
      assert.equal(readdirSync(s.agentDir).filter((f) => f.includes('.corrupt-')).length, 2);
    } finally {
      s.hub.cleanup();
    }
  });

  test('session ids that could leave the agent directory are refused', async () => {
    const s = setup();
    try {
      for (const bad of ['../escape', '..', 'a/b', 'a\\b', '', '.hidden', 'x'.repeat(200), 'a b', 'a\0b']) {
        assert.ok(
          !Value.Check(RecordOutputInputSchema, {
            session_id: bad,
            role: 'analyst',
            output: {},
            status: 'ok',
            latency_ms: 1,
          }),
          bad,
        );
        await rejectsWith(
          s.record({
            session_id: bad,
            role: 'analyst',
            output: OUTPUTS.analyst,
            status: 'ok',
            latency_ms: 1,
          }),
          'validation',
          /session_id/,
        );
        await rejectsWith(s.bundle({ session_id: bad }), 'validation', /session_id/);
      }
      assert.ok(!existsSync(join(s.hub.dir, 'state', 'escape.json')));
      assert.ok(!existsSync(join(s.agentDir, '..', 'evidence_bundle_.json')));
    } finally {
      s.hub.cleanup();
    }
  });

  test('roles: built-ins plus roles.json, with schemas; registered roles require their fields', async () => {
    const s = setup();
    try {
      mkdirSync(s.hub.ctx.config.stateDir, { recursive: true });
      writeFileSync(
        join(s.hub.ctx.config.stateDir, 'roles.json'),
        JSON.stringify({
          roles: [{ id: 'security-auditor', description: 'Threats', required: ['threats'] }],
        }),
      );
      const { roles } = await s.hub.call<{
        roles: { id: string; builtin: boolean; output_schema: unknown }[];
      }>(rolesTool, {});
      assert.deepEqual(
        roles.map((r) => r.id),
        [...ROLES, 'security-auditor'],
      );
      assert.ok(roles.every((r) => typeof r.output_schema === 'object'));
      await rejectsWith(
        s.record({
          session_id: 'run-r',
          role: 'security-auditor',
          output: { summary: 'ok' },
          status: 'ok',
          latency_ms: 1,
        }),
        'validation',
        /output\.threats/,
      );
      await s.record({
        session_id: 'run-r',
        role: 'security-auditor',
        output: { summary: 'ok', threats: ['none'] },
        status: 'ok',
        latency_ms: 1,
      });
      const b = await s.bundle({ session_id: 'run-r', role: 'security-auditor' });
      assert.deepEqual(Object.keys(b.slots as object), ['security-auditor']);

      // A broken roles.json is ignored; built-ins keep working.
      writeFileSync(join(s.hub.ctx.config.stateDir, 'roles.json'), '{not json');
      const after = await s.hub.call<{ roles: { id: string }[] }>(rolesTool, {});
      assert.deepEqual(
        after.roles.map((r) => r.id),
        ROLES,
      );
    } finally {
      s.hub.cleanup();
    }
  });

  test('role outputs across sessions, newest first; bundle slots cut to max_per_role with meta', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const hub = makeTestHub(({ ctx }) => ({
      supervise: createSuperviseService({
        agentDir: ctx.config.agentDir,
        stateDir: ctx.config.stateDir,
        now: () => (clock += 1000),
      }),
    }));
    try {
      for (const session of ['s1', 's2', 's3']) {
        await hub.call(recordOutputTool, {
          session_id: session,
          role: 'tester',
          output: { ...OUTPUTS.tester, session },
          status: 'ok',
          latency_ms: 1,
        });
        await hub.call(recordOutputTool, {
          session_id: session,
          role: 'analyst',
          output: OUTPUTS.analyst!,
          status: 'ok',
          latency_ms: 1,
        });
      }
      type Outs = {
        entries: { session_id: string }[];
        meta: { sessions_scanned: number; unreadable: number };
      };
      const all = await hub.call<Outs>(roleOutputsTool, { role: 'tester' });
      assert.deepEqual(
        all.entries.map((o) => o.session_id),
        ['s3', 's2', 's1'],
      );
      assert.deepEqual([all.meta.sessions_scanned, all.meta.unreadable], [3, 0]);
      const one = await hub.call<Outs>(roleOutputsTool, { role: 'tester', session_id: 's2' });
      assert.deepEqual(
        one.entries.map((o) => o.session_id),
        ['s2'],
      );
      await rejectsWith(hub.call(roleOutputsTool, { role: 'nobody' }), 'validation', /unknown role/);
      await rejectsWith(
        hub.call(bundleTool, { session_id: 'never' }),
        'not_found',
        /cos_supervise_record_output/,
      );

      for (let i = 0; i < 4; i++) {
        await hub.call(recordOutputTool, {
          session_id: 's1',
          role: 'tester',
          output: { ...OUTPUTS.tester, i },
          status: 'ok',
          latency_ms: 1,
        });
      }
      const cut = await hub.call<{ slots: Record<string, unknown[]>; meta: { slots_cut: object } }>(
        bundleTool,
        {
          session_id: 's1',
          max_per_role: 2,
        },
      );
      assert.equal(cut.slots.tester?.length, 2);
      assert.deepEqual(cut.meta.slots_cut, { tester: { from: 5, to: 2 } });
    } finally {
      hub.cleanup();
    }
  });
});
