// An agents directory the hub cannot write: cos_supervise_record_output answers `permission` saying what
// to do (over MCP and REST), nothing is half-written, an unreadable bundle there is left as it is, and
// once the directory is writable again recording works. The directory is made really read-only: a
// read-only bind mount as root (permission bits stop nothing for root), chmod otherwise. On the previous
// main the answer was a generic "check permissions", and `internal` for an unreadable bundle it could not
// move aside.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';
import { makeReadOnly, type ReadOnly } from '../../support/read-only.ts';

let t: TestHub;
let client: Client;
let readOnly: ReadOnly | undefined;
let agentDir: string;

interface Env {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: { category: string; retryable: boolean; message: string };
}

const output = (session: string) => ({
  session_id: session,
  role: 'researcher',
  output: {},
  status: 'fail',
  latency_ms: 5,
});

async function record(session: string): Promise<Env> {
  const result = await client.callTool({ name: 'cos_supervise_record_output', arguments: output(session) });
  const env = result.structuredContent as Env;
  assert.equal(result.isError, !env.ok);
  return env;
}

before(async () => {
  t = await startTestHub({ listen: true });
  client = await connectClient(t.url);
  agentDir = t.config.agentDir;
  assert.equal((await record('before')).ok, true);
  // An unreadable bundle, as a crash of another tool or a hand edit leaves one.
  writeFileSync(join(agentDir, 'evidence_bundle_broken.json'), '{"version": 1, "session_id": "bro');
  readOnly = makeReadOnly(agentDir);
});
after(async () => {
  readOnly?.undo();
  await client.close();
  await t.close();
});

describe('a read-only agents directory', () => {
  const skip = () => (readOnly ? false : 'the directory could not be made read-only here (mount refused)');

  test('recording answers permission, saying what to do, over MCP and REST; nothing is written', async (ctx) => {
    if (skip()) return ctx.skip(String(skip()));
    const files = readdirSync(agentDir).sort();
    const before = readFileSync(join(agentDir, 'evidence_bundle_before.json'), 'utf8');
    for (const session of ['before', 'new-session']) {
      const env = await record(session);
      assert.equal(env.ok, false, JSON.stringify(env));
      assert.equal(env.error?.category, 'permission', env.error?.message);
      assert.equal(env.error?.retryable, false);
      assert.match(
        env.error!.message,
        new RegExp(
          `^nothing was recorded for session ${session}: the agents directory cannot be written \\((EROFS|EACCES)\\); make it writable for the hub \\(or point COS_AGENT_DIR at a directory that is\\) and retry$`,
        ),
      );
      assert.ok(!env.error!.message.includes(agentDir), 'no absolute path');
    }
    const rest = await t.app.inject({
      method: 'POST',
      url: '/api/supervise/sessions/over-rest/outputs',
      headers: { host: '127.0.0.1' },
      payload: { ...output('over-rest'), session_id: undefined },
    });
    assert.equal(rest.statusCode, 403, rest.body);
    assert.equal(rest.json().error.category, 'permission');
    assert.deepEqual(readdirSync(agentDir).sort(), files, 'no file added, no temp file left');
    assert.equal(readFileSync(join(agentDir, 'evidence_bundle_before.json'), 'utf8'), before);
  });

  test('an unreadable bundle it cannot move aside: permission, the file left as it is', async (ctx) => {
    if (skip()) return ctx.skip(String(skip()));
    const env = await record('broken');
    assert.equal(env.error?.category, 'permission', JSON.stringify(env));
    assert.match(
      env.error!.message,
      /^the evidence bundle of session broken is unreadable and could not be moved aside, so nothing was written over it \(error id E-[\w-]+\): the agents directory cannot be written \((EROFS|EACCES)\); make it writable/,
    );
    assert.equal(
      readFileSync(join(agentDir, 'evidence_bundle_broken.json'), 'utf8'),
      '{"version": 1, "session_id": "bro',
    );
  });

  test('writable again, recording works where it stopped', async (ctx) => {
    if (skip()) return ctx.skip(String(skip()));
    readOnly!.undo();
    readOnly = undefined;
    const env = await record('before');
    assert.equal(env.ok, true, JSON.stringify(env));
    assert.equal(env.data?.seq, 2);
    // The unreadable bundle can be moved aside now (said as before), and the next output starts anew.
    const aside = await record('broken');
    assert.match(aside.error?.message ?? '', /was unreadable and was moved aside/);
    assert.equal((await record('broken')).ok, true);
  });
});

test('an agents directory that cannot be created: permission too (Node says ENOENT for it)', async (ctx) => {
  const root = join(t.dir, 'locked');
  mkdirSync(root);
  const locked = makeReadOnly(root);
  if (!locked) return ctx.skip('the directory could not be made read-only here (mount refused)');
  const other = await startTestHub({ env: { COS_AGENT_DIR: join(root, 'agents') }, listen: true });
  const otherClient = await connectClient(other.url);
  try {
    const result = await otherClient.callTool({
      name: 'cos_supervise_record_output',
      arguments: output('s'),
    });
    const env = result.structuredContent as Env;
    assert.equal(env.error?.category, 'permission', JSON.stringify(env));
    assert.match(env.error!.message, /the agents directory cannot be written \((EROFS|EACCES)\)/);
  } finally {
    await otherClient.close();
    locked.undo();
    await other.close();
  }
});
