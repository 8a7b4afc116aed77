// The official MCP conformance suite against the real hub over a real port.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CONFORMANCE_SCENARIOS, runScenario } from '../../../scripts/lib/conformance.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
before(async () => {
  t = await startTestHub({ listen: true, withoutServices: true });
});
after(() => t.close());

for (const scenario of CONFORMANCE_SCENARIOS) {
  test(`conformance: ${scenario}`, { timeout: 60_000 }, async () => {
    const result = await runScenario(`${t.url}/mcp`, scenario);
    const failures = result.checks.filter((c) => c.status === 'FAILURE');
    assert.ok(result.checks.length > 0, `the scenario ran checks:\n${result.output}`);
    assert.deepEqual(
      failures.map((c) => `${c.id}: ${c.errorMessage}`),
      [],
    );
    assert.equal(result.exitCode, 0, result.output);
  });
}
