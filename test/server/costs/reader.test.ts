// The transcript reader, step by step on real files: it resumes at the byte after the last whole line,
// leaves a partial last line for the next read, carries Codex's model and running totals across steps
// (and across a hub restart, through the position it stores), skips a line too long to hold without
// losing the lines after it, starts again from 0 when the file is replaced or truncated, and reads a
// Gemini recording caught mid-rewrite again later instead of counting it half.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Position, readStep } from '../../../server/costs/reader.ts';
import type { SourceRow } from '../../../server/costs/store.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cos-reader-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const source = (path: string, client: string): SourceRow => ({
  id: 1,
  path,
  client,
  agent_session: 's',
  dev: 0,
  ino: 0,
  offset: 0,
  size: 0,
  mtime_ms: 0,
  head: null,
  state: null,
  read_at: null,
  records: 0,
  error: null,
});
const moved = (src: SourceRow, p: Position): SourceRow => ({ ...src, ...p });

const claude = (id: string, output: number) =>
  `${JSON.stringify({
    type: 'assistant',
    requestId: `req_${id}`,
    timestamp: '2026-12-01T10:00:00Z',
    message: { id, model: 'claude-haiku-4-5', usage: { input_tokens: 1, output_tokens: output } },
  })}\n`;

test('a partial last line waits; a file that grows is read on from where the last read stopped', async () => {
  const f = join(dir, 'grow.jsonl');
  const second = claude('m2', 20);
  writeFileSync(f, claude('m1', 10) + second.slice(0, 30));
  let src = source(f, 'claude-code');
  let step = await readStep(src);
  assert.deepEqual(
    step.entries.map((e) => e.key),
    ['cc:m1:req_m1'],
  );
  assert.equal(step.done, true);
  src = moved(src, step.position);
  step = await readStep(src);
  assert.equal(step.entries.length, 0, 'still half a line');
  appendFileSync(f, second.slice(30) + claude('m3', 30));
  step = await readStep(src);
  assert.deepEqual(
    step.entries.map((e) => [e.key, e.output_tokens]),
    [
      ['cc:m2:req_m2', 20],
      ['cc:m3:req_m3', 30],
    ],
  );
});

test('small steps read a file in bounded parts and together see every line once', async () => {
  const f = join(dir, 'steps.jsonl');
  const filler = `${JSON.stringify({ type: 'user', message: { content: 'x'.repeat(500) } })}\n`;
  let text = '';
  for (let i = 0; i < 200; i++) text += i % 3 === 0 ? claude(`m${i}`, i + 1) : filler;
  writeFileSync(f, text);
  let src = source(f, 'claude-code');
  const keys: string[] = [];
  let steps = 0;
  for (;;) {
    const step = await readStep(src, 4096);
    keys.push(...step.entries.map((e) => e.key));
    src = moved(src, step.position);
    steps++;
    if (step.done) break;
  }
  assert.ok(steps > 10, `read in ${steps} steps`);
  assert.equal(keys.length, 67);
  assert.equal(new Set(keys).size, 67);
});

test('a line longer than a step is read whole; a replaced or truncated file is read from its start', async () => {
  const f = join(dir, 'rotate.jsonl');
  const big = `${JSON.stringify({ type: 'user', message: { content: 'y'.repeat(3 * 1024 * 1024) } })}\n`;
  writeFileSync(f, claude('a1', 1) + big + claude('a2', 2));
  let src = source(f, 'claude-code');
  let keys: string[] = [];
  for (;;) {
    const step = await readStep(src);
    keys.push(...step.entries.map((e) => e.key));
    src = moved(src, step.position);
    if (step.done) break;
  }
  assert.deepEqual(keys, ['cc:a1:req_a1', 'cc:a2:req_a2']);
  // Replaced: a new file (new inode) under the same name.
  rmSync(f);
  writeFileSync(f, claude('b1', 1));
  let step = await readStep(src);
  assert.equal(step.rotated, true);
  assert.deepEqual(
    step.entries.map((e) => e.key),
    ['cc:b1:req_b1'],
  );
  src = moved(src, step.position);
  // Truncated in place and written again.
  truncateSync(f, 0);
  writeFileSync(f, claude('c1', 1));
  step = await readStep(src);
  assert.equal(step.rotated, true);
  keys = step.entries.map((e) => e.key);
  assert.deepEqual(keys, ['cc:c1:req_c1']);
});

test("Codex's model and running totals carry across steps through the stored position", async () => {
  const f = join(dir, 'rollout-2026-12-01T10-00-00-019a.jsonl');
  const tc = (input: number, output: number) =>
    `${JSON.stringify({
      timestamp: '2026-12-01T10:01:00Z',
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output } },
      },
    })}\n`;
  writeFileSync(
    f,
    `${JSON.stringify({ type: 'session_meta', payload: { id: '019a' } })}\n${JSON.stringify({
      type: 'turn_context',
      payload: { model: 'gpt-5-codex' },
    })}\n${tc(100, 10)}`,
  );
  let src = source(f, 'codex');
  let step = await readStep(src);
  assert.deepEqual(
    step.entries.map((e) => [e.key, e.model, e.input_tokens, e.output_tokens]),
    [['cx:019a:110', 'gpt-5-codex', 100, 10]],
  );
  // What a restarted hub has: the position as stored, its state as JSON text.
  src = moved(src, JSON.parse(JSON.stringify(step.position)) as Position);
  appendFileSync(f, tc(100, 10) + tc(250, 30));
  step = await readStep(src);
  assert.deepEqual(
    step.entries.map((e) => [e.key, e.model, e.input_tokens, e.output_tokens]),
    [['cx:019a:280', 'gpt-5-codex', 150, 20]],
  );
});

test('a Gemini recording caught mid-rewrite is read again later, whole', async () => {
  const f = join(dir, 'session-2026-12-01T10-00-abc.json');
  const doc = (n: number) =>
    JSON.stringify({
      sessionId: 'abc',
      messages: Array.from({ length: n }, (_, i) => ({
        id: `g${i}`,
        type: 'gemini',
        model: 'gemini-2.5-flash',
        tokens: { input: 100, output: 10, cached: 0, thoughts: 5, tool: 0 },
      })),
    });
  writeFileSync(f, doc(2).slice(0, 60));
  let src = source(f, 'gemini');
  let step = await readStep(src);
  assert.equal(step.entries.length, 0);
  assert.match(step.position.error ?? '', /read again later/);
  src = moved(src, step.position);
  writeFileSync(f, doc(2));
  step = await readStep(src);
  assert.deepEqual(
    step.entries.map((e) => [e.key, e.input_tokens, e.output_tokens]),
    [
      ['gm:abc:g0', 100, 15],
      ['gm:abc:g1', 100, 15],
    ],
  );
  src = moved(src, step.position);
  step = await readStep(src);
  assert.equal(step.entries.length, 0, 'unchanged: not read again');
});
