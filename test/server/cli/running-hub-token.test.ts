// A hub started with COS_HUB_TOKEN: the `cos` command asks it with the token, and without the token
// says what is missing instead of changing the state behind the hub's back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cos, makeRepo } from '../../support/cli.ts';
import { type HubProcess, startHubProcess } from '../../support/hub-process.ts';

describe('a hub that asks for a token', { timeout: 180_000 }, () => {
  let repo: string;
  let hub: HubProcess;
  before(async () => {
    repo = makeRepo();
    hub = await startHubProcess(repo, { COS_HUB_TOKEN: 'a-long-enough-secret-token' });
  });
  after(async () => {
    await hub?.stop();
  });

  test('cos module sends COS_HUB_TOKEN to it', async () => {
    const run = await cos(['module', 'disable', 'docs', '--repo', repo], {
      COS_HUB_TOKEN: 'a-long-enough-secret-token',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /docs disabled in the hub/);
  });

  test('without the token, cos module says so and changes nothing', async () => {
    const before = readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8');
    const run = await cos(['module', 'enable', 'docs', '--repo', repo]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /asks for a token: set COS_HUB_TOKEN/);
    assert.equal(readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8'), before);
  });
});
