// A running-hub.json that names no hub of ours: left by a hub that died, or naming an address off this
// machine (a repository can ship a .cos/ of its own). The command works on the state directory itself
// and sends nothing, the token least of all, to the recorded address.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cos, makeRepo } from '../../support/cli.ts';

describe('a running-hub.json that names no hub of ours', { timeout: 240_000 }, () => {
  test('a running-hub.json left by a hub that died is ignored', async () => {
    const repo = makeRepo();
    mkdirSync(join(repo, '.cos'), { recursive: true });
    // A pid that is not running, and a port nothing listens on.
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    writeFileSync(
      join(repo, '.cos/running-hub.json'),
      JSON.stringify({ pid: 2 ** 22 + 17, url: `http://127.0.0.1:${free}`, repo, started_at: '' }),
    );
    const run = await cos(['module', 'disable', 'memory', '--repo', repo]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'memory disabled');
    assert.deepEqual(JSON.parse(readFileSync(join(repo, '.cos/subsystems-state.json'), 'utf8')).disabled, [
      'memory',
    ]);
  });

  test('a running-hub.json naming an address off this machine is ignored and never gets the token', async (t) => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!address) {
      t.skip('this machine has no address but loopback to stand for "off this machine"');
      return;
    }
    const seen: string[] = [];
    const server = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    try {
      const repo = makeRepo();
      mkdirSync(join(repo, '.cos'), { recursive: true });
      const port = (server.address() as { port: number }).port;
      // A live pid (this test's) and an address that answers: only the address is wrong.
      writeFileSync(
        join(repo, '.cos/running-hub.json'),
        JSON.stringify({ pid: process.pid, url: `http://${address}:${port}`, repo, started_at: '' }),
      );
      const run = await cos(['module', 'disable', 'memory', '--repo', repo], {
        COS_HUB_TOKEN: 'do-not-send-me',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), 'memory disabled');
      assert.deepEqual(seen, [], 'nothing was sent to the recorded address');
    } finally {
      server.close();
    }
  });
});
