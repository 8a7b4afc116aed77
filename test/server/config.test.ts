import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../server/config.ts';

test('defaults: 127.0.0.1:9188, the working directory, state under .cos', () => {
  const c = loadConfig({}, {}, '/srv/repo');
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 9188);
  assert.equal(c.repo, '/srv/repo');
  assert.equal(c.stateDir, '/srv/repo/.cos');
  assert.equal(c.tasksDir, '/srv/repo/docs/tasks');
  assert.equal(c.agentDir, '/srv/repo/.cos/agents');
  assert.equal(c.mcpSessionIdleMs, 30 * 60_000);
});

test('flags override the environment', () => {
  const c = loadConfig({ COS_PORT: '1000', COS_REPO: '/a' }, { port: '2000', repo: '/b' }, '/');
  assert.equal(c.port, 2000);
  assert.equal(c.repo, '/b');
});

test('a bad port is refused with a clear message', () => {
  assert.throws(() => loadConfig({ COS_PORT: 'http' }), /COS_PORT must be a port number/);
});

test('binding off loopback needs a token', () => {
  assert.throws(() => loadConfig({ COS_HOST: '0.0.0.0' }), /COS_HUB_TOKEN/);
  assert.equal(loadConfig({ COS_HOST: '0.0.0.0', COS_HUB_TOKEN: 't' }).token, 't');
});

test('the idle timeout is configurable in minutes', () => {
  assert.equal(loadConfig({ COS_MCP_SESSION_IDLE_MINUTES: '2' }).mcpSessionIdleMs, 120_000);
});

test('a project releases its caches after COS_PROJECT_IDLE_MINUTES (10 by default; 0 never)', () => {
  assert.equal(loadConfig({}).projectIdleMs, 600_000);
  assert.equal(loadConfig({ COS_PROJECT_IDLE_MINUTES: '2' }).projectIdleMs, 120_000);
  assert.equal(loadConfig({ COS_PROJECT_IDLE_MINUTES: '0.5' }).projectIdleMs, 30_000);
  assert.equal(loadConfig({ COS_PROJECT_IDLE_MINUTES: '0' }).projectIdleMs, 0);
  // Nonsense falls back to the default rather than releasing at once.
  assert.equal(loadConfig({ COS_PROJECT_IDLE_MINUTES: '-3' }).projectIdleMs, 600_000);
  assert.equal(loadConfig({ COS_PROJECT_IDLE_MINUTES: 'soon' }).projectIdleMs, 600_000);
});
