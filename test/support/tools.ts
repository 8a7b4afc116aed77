// Tools written only to exercise the registry and its adapters. They are not part of the product.
import { Type } from '@sinclair/typebox';
import { ToolError } from '../../server/errors.ts';
import { type AnyTool, defineTool } from '../../server/tools/define.ts';

export const echoTool = defineTool({
  name: 'cos_test_echo',
  title: 'Echo',
  description: 'Answers with what it was given.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    {
      text: Type.String({ maxLength: 10_000 }),
      times: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      loud: Type.Optional(Type.Boolean()),
      tags: Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ text: Type.String(), tags: Type.Array(Type.String()) }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/test/echo', tag: 'test' },
  handler: (_ctx, input) => {
    const text = input.text.repeat(input.times ?? 1);
    return { text: input.loud ? text.toUpperCase() : text, tags: input.tags ?? [] };
  },
});

export const itemTool = defineTool({
  name: 'cos_test_item',
  title: 'Item',
  description: 'Looks an item up by id; only "a" exists.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    { id: Type.String({ minLength: 1 }), note: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
  output: Type.Object({ id: Type.String(), note: Type.Optional(Type.String()) }),
  http: { method: 'POST', path: '/api/test/items/:id', tag: 'test' },
  handler: (_ctx, input) => {
    if (input.id !== 'a') throw new ToolError('not_found', `no item "${input.id}"; the only item is "a"`);
    return input.note === undefined ? { id: input.id } : { id: input.id, note: input.note };
  },
});

export const bigTool = defineTool({
  name: 'cos_test_big',
  title: 'Big',
  description: 'Answers with `count` results of about 200 bytes each.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    { count: Type.Integer({ minimum: 0, maximum: 100_000 }) },
    { additionalProperties: false },
  ),
  output: Type.Object({
    results: Type.Array(Type.Object({ i: Type.Integer(), text: Type.String() })),
    count: Type.Integer(),
  }),
  http: { method: 'GET', path: '/api/test/big', tag: 'test' },
  handler: (_ctx, input) => {
    const results = Array.from({ length: input.count }, (_, i) => ({
      i,
      text: `item ${i} `.padEnd(190, '.'),
    }));
    return { results, count: results.length };
  },
});

export const failingTool = defineTool({
  name: 'cos_test_fail',
  title: 'Fail',
  description: 'Throws the kind of error it is asked for.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    {
      kind: Type.Union([
        Type.Literal('crash'),
        Type.Literal('busy'),
        Type.Literal('readonly'),
        Type.Literal('eacces'),
        Type.Literal('timeout'),
        Type.Literal('unavailable'),
      ]),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({}),
  http: { method: 'POST', path: '/api/test/fail', tag: 'test' },
  handler: (ctx, input) => {
    switch (input.kind) {
      case 'crash':
        throw new Error(`boom at ${ctx.config.repo}/secret.ts: SELECT * FROM hidden`);
      case 'busy':
        ctx.db.exec('BEGIN IMMEDIATE');
        try {
          throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY', name: 'SqliteError' });
        } finally {
          ctx.db.exec('ROLLBACK');
        }
      case 'readonly':
        throw Object.assign(new Error('attempt to write a readonly database'), {
          code: 'SQLITE_READONLY',
          name: 'SqliteError',
        });
      case 'eacces':
        throw Object.assign(new Error(`EACCES: permission denied, open '${ctx.config.repo}/x'`), {
          code: 'EACCES',
        });
      case 'timeout':
        throw Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
      case 'unavailable':
        throw new ToolError('unavailable', 'the grammar for this language is not installed');
    }
  },
});

export const memoryModuleTool = defineTool({
  name: 'cos_test_memory_probe',
  title: 'Memory probe',
  description: 'A tool of the memory module, to test module gating.',
  module: 'memory',
  layer: 'memory',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ alive: Type.Boolean() }),
  http: { method: 'GET', path: '/api/test/memory-probe', tag: 'test' },
  handler: () => ({ alive: true }),
});

export const progressTool = defineTool({
  name: 'cos_test_progress',
  title: 'Progress',
  description: 'Reports `steps` progress notifications, then answers.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object({ steps: Type.Integer({ minimum: 1, maximum: 20 }) }, { additionalProperties: false }),
  output: Type.Object({ done: Type.Integer() }),
  handler: async (ctx, input) => {
    for (let i = 1; i <= input.steps; i++) {
      ctx.progress({ progress: i, total: input.steps, message: `step ${i}` });
      await new Promise((r) => setTimeout(r, 5));
    }
    return { done: input.steps };
  },
});

export const sleepTool = defineTool({
  name: 'cos_test_sleep',
  title: 'Sleep',
  description: 'Answers after `ms` milliseconds.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    { ms: Type.Integer({ minimum: 0, maximum: 5_000 }), agent_session: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
  output: Type.Object({ slept: Type.Integer() }),
  http: { method: 'POST', path: '/api/test/sleep', tag: 'test' },
  handler: async (_ctx, input) => {
    await new Promise((r) => setTimeout(r, input.ms));
    return { slept: input.ms };
  },
});

/** Reasons the wait tool's calls were aborted with, in order: what a cancellation test reads. */
export const abortsSeen: unknown[] = [];

export const waitTool = defineTool({
  name: 'cos_test_wait',
  title: 'Wait for cancellation',
  description: 'Answers when its call is aborted (noting the reason in abortsSeen), or after `ms`.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object({ ms: Type.Integer({ minimum: 0, maximum: 10_000 }) }, { additionalProperties: false }),
  output: Type.Object({ aborted: Type.Boolean() }),
  handler: async (ctx, input) => {
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), input.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        abortsSeen.push(ctx.signal.reason);
        resolve(true);
      });
    });
    return { aborted };
  },
});

export const testTools: AnyTool[] = [
  waitTool,
  echoTool,
  itemTool,
  bigTool,
  failingTool,
  memoryModuleTool,
  progressTool,
  sleepTool,
];
