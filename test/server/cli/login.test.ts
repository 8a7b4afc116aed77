// `cos serve` with a token prints a one-time link for the browser, and `cos login` asks the running hub
// for another; each link signs in once, and neither carries the token.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const COS = new URL('../../../server/bin/cos.mjs', import.meta.url).pathname;
const TOKEN = 'cli-login-token';

test('cos serve prints a one-time login link and cos login prints a fresh one', {
  timeout: 90_000,
}, async (t) => {
  const repo = mkdtempSync(join(tmpdir(), 'cos-cli-login-'));
  const env = { ...process.env, COS_HUB_TOKEN: TOKEN };
  const child = spawn(process.execPath, [COS, 'serve', '--port', '0', '--repo', repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const link = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no link printed: ${out}`)), 75_000);
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /Browser\s+(http:\/\/\S+\/login\?code=\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  assert.doesNotMatch(out, new RegExp(TOKEN), 'the token is never printed');
  const port = new URL(link).port;
  const first = await fetch(link, { redirect: 'manual' });
  assert.equal(first.status, 303);
  assert.match(first.headers.get('set-cookie') ?? '', /HttpOnly; SameSite=Strict/);
  assert.equal((await fetch(link, { redirect: 'manual' })).status, 401, 'the printed link works once');

  const login = spawnSync(process.execPath, [COS, 'login', '--port', port, '--repo', repo], {
    encoding: 'utf8',
    env,
  });
  assert.equal(login.status, 0, login.stderr);
  const fresh = /(http:\/\/\S+\/login\?code=\S+)/.exec(login.stdout)?.[1];
  assert.ok(fresh, login.stdout);
  assert.doesNotMatch(login.stdout, new RegExp(TOKEN));
  const cookie = (await fetch(fresh, { redirect: 'manual' })).headers.get('set-cookie')?.split(';', 1)[0];
  assert.ok(cookie);
  assert.equal((await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { cookie } })).status, 200);

  const wrong = spawnSync(process.execPath, [COS, 'login', '--port', port, '--repo', repo], {
    encoding: 'utf8',
    env: { ...env, COS_HUB_TOKEN: 'not-the-token' },
  });
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /refused COS_HUB_TOKEN/);

  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});
