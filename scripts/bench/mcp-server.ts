// Child process of bench/mcp.ts: a hub with one small read tool (about 2 KB of answer) and, on a second
// port, a bare Fastify route answering the same bytes. Prints {"hub":port,"bare":port} once listening.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createHub } from '../../server/hub.ts';
import { catalog } from '../../server/tools/catalog.ts';
import { defineTool } from '../../server/tools/define.ts';

export const ROWS = Array.from({ length: 24 }, (_, i) => ({
  id: `row-${i}`,
  title: `Row number ${i}`,
  score: i / 24,
  tags: ['a', 'b'],
}));

const benchTool = defineTool({
  name: 'cos_bench_rows',
  title: 'Bench rows',
  description: 'A fixed answer of about 2 KB, for the transport benchmark.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ rows: Type.Array(Type.Any()) }),
  annotations: { readOnlyHint: true },
  handler: () => ({ rows: ROWS }),
});

const dir = mkdtempSync(join(tmpdir(), 'cos-bench-mcp-'));
const hub = createHub(
  loadConfig(
    {
      COS_REPO: dir,
      COS_PORT: '0',
      COS_RATE_LIMIT_RPS: '0',
      COS_RECORD_CALLS: process.env.COS_RECORD_CALLS ?? '1',
    },
    {},
    dir,
  ),
  {
    tools: [...catalog, benchTool],
    logger: pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'bench.log'), sync: false })),
  },
);
const app = await buildApp(hub);
await app.listen({ port: 0, host: '127.0.0.1' });

const bare = Fastify();
const body = {
  ok: true,
  data: { rows: ROWS, meta: { layer: 'health', tokens_estimated: 600, truncated: false } },
};
bare.get('/rows', async () => body);
// CPU time of this process, so the load generator can report CPU per request, which machine noise barely moves.
bare.get('/cpu', async () => process.cpuUsage());
await bare.listen({ port: 0, host: '127.0.0.1' });

const portOf = (a: ReturnType<typeof app.server.address>) => (typeof a === 'object' && a ? a.port : 0);
process.stdout.write(
  `${JSON.stringify({ hub: portOf(app.server.address()), bare: portOf(bare.server.address()) })}\n`,
);
process.on('SIGTERM', async () => {
  await app.close();
  await bare.close();
  await hub.close();
  process.exit(0);
});
