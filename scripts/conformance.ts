// npm run conformance: starts a hub on a free loopback port over a temp repository and runs the MCP
// conformance scenarios the hub promises. Exit 1 when any check fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { createHub } from '../server/hub.ts';
import { CONFORMANCE_SCENARIOS, runScenario } from './lib/conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'cos-conformance-hub-'));
const hub = createHub(loadConfig({ COS_REPO: dir, COS_PORT: '0' }, {}, dir), {
  logger: pino({ level: 'silent' }),
});
const app = await buildApp(hub);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
let failed = 0;
try {
  for (const scenario of CONFORMANCE_SCENARIOS) {
    const result = await runScenario(url, scenario);
    const bad = result.checks.filter((c) => c.status === 'FAILURE');
    const ok = result.exitCode === 0 && bad.length === 0 && result.checks.length > 0;
    if (!ok) failed++;
    console.log(`${ok ? 'pass' : 'FAIL'}  ${scenario}  (${result.checks.length} checks)`);
    for (const c of bad) console.log(`      ${c.id}: ${c.errorMessage ?? ''}`);
    if (!ok && bad.length === 0) console.log(result.output);
  }
} finally {
  await app.close();
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed === 0 ? 0 : 1;
