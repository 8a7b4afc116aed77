// kill -9 of the hub in the middle of writes; after a restart every acknowledged write is there, in the
// file and in the index, the database passes its integrity check, and nothing half-written shows.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../server/db/open.ts';
import { startHubProcess } from '../../support/hub-process.ts';

const freshRepo = () => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-kill-'));
  mkdirSync(join(repo, 'docs/tasks'), { recursive: true });
  return repo;
};

function integrityOk(repo: string): void {
  const db = openDatabase(join(repo, '.cos/hub.db'));
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
  }
}

async function postJson(
  url: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test('kill -9 during 100 concurrent task creates loses no acknowledged task', {
  timeout: 180_000,
}, async () => {
  const repo = freshRepo();
  const hub = await startHubProcess(repo);
  const acked = new Map<string, string>(); // task id → title
  let killing: Promise<void> | undefined;
  const writes = Array.from({ length: 100 }, async (_, i) => {
    const title = `Crash test task ${i}`;
    try {
      const res = await postJson(`${hub.url}/api/board/tasks`, { title, ready: true });
      if (res.status === 200) {
        const data = res.json.data as { task: { id: string } };
        acked.set(data.task.id, title);
        // Kill once a few writes are through, while the rest are in flight.
        if (acked.size === 10) killing = hub.kill9();
      }
    } catch {
      // The connection died with the hub: not acknowledged, so nothing is promised.
    }
  });
  await Promise.all(writes);
  await (killing ?? hub.kill9());
  assert.ok(acked.size >= 10, `acknowledged before the kill: ${acked.size}`);

  integrityOk(repo);
  const again = await startHubProcess(repo);
  try {
    for (const [id, title] of acked) {
      const res = await fetch(`${again.url}/api/board/tasks/${id}`);
      assert.equal(res.status, 200, `${id} acknowledged before the kill is in the index after it`);
      const body = (await res.json()) as { data: { title: string } };
      assert.equal(body.data.title, title);
    }
    const files = readdirSync(join(repo, 'docs/tasks'));
    for (const id of acked.keys())
      assert.ok(
        files.some((f) => f.startsWith(`${id}-`)),
        `${id} has its file`,
      );
    // Nothing half-written is visible: every task file parses, and the board reports no parse errors.
    const board = (await (await fetch(`${again.url}/api/board/list?include_archive=true`)).json()) as {
      meta: { parse_errors?: unknown[] };
    };
    assert.deepEqual(board.meta.parse_errors ?? [], []);
    for (const f of files.filter((x) => x.endsWith('.md'))) {
      assert.match(
        readFileSync(join(repo, 'docs/tasks', f), 'utf8'),
        /^---\n[\s\S]*\n---\n/,
        `${f} is whole`,
      );
    }
  } finally {
    assert.equal(await again.stop(), 0);
  }
  integrityOk(repo);
});

test('kill -9 during concurrent evidence bundle writes leaves a valid bundle with every acknowledged output', {
  timeout: 180_000,
}, async () => {
  const repo = freshRepo();
  const hub = await startHubProcess(repo);
  const acked = new Set<string>();
  let killing: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const marker = `discovery-${i}`;
      try {
        const res = await postJson(`${hub.url}/api/supervise/sessions/crash-run/outputs`, {
          role: 'tester',
          output: {},
          status: 'fail',
          latency_ms: i,
          discoveries: [marker],
        });
        if (res.status === 200) {
          acked.add(marker);
          if (acked.size === 10) killing = hub.kill9();
        }
      } catch {
        // Not acknowledged.
      }
    }),
  );
  await (killing ?? hub.kill9());
  assert.ok(acked.size >= 10);
  const again = await startHubProcess(repo);
  try {
    const res = await fetch(`${again.url}/api/supervise/sessions/crash-run/bundle`);
    assert.equal(res.status, 200, 'the bundle reads back whole');
    const body = (await res.json()) as { data: { discoveries: { text: string }[] } };
    const texts = new Set(body.data.discoveries.map((d) => d.text));
    for (const marker of acked)
      assert.ok(texts.has(marker), `${marker} acknowledged before the kill is in the bundle`);
  } finally {
    await again.stop();
  }
});
