// `npm ci` on the Node the README names prints no engine warning: every package the lock files install
// (the hub's and the conformance suite's) accepts the oldest Node the README supports and the one running
// the tests. The overrides that make it so pin versions whose behaviour is exercised below.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import semver from 'semver';

const ROOT = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

/** "Needs Node.js ≥ 20.19 with npm 11": the oldest Node the README promises. */
function readmeNode(): string {
  const m = /Needs Node\.js ≥ (\d+\.\d+(?:\.\d+)?)/.exec(readme);
  assert.ok(m?.[1], 'the README names the Node version it needs ("Needs Node.js ≥ x.y")');
  return semver.coerce(m[1])!.version;
}

test("package.json's engines say what the README says", () => {
  assert.equal(semver.minVersion(pkg.engines.node)?.version, readmeNode());
});

for (const lockFile of ['package-lock.json', 'scripts/conformance/package-lock.json']) {
  test(`every package in ${lockFile} accepts Node ${readmeNode()} and ${process.version}`, () => {
    const lock = JSON.parse(readFileSync(join(ROOT, lockFile), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!range) continue;
      for (const node of [readmeNode(), process.version]) {
        if (!semver.satisfies(node, range))
          refused.push(`${path}@${entry.version} wants node ${range}, not ${node}`);
      }
    }
    assert.deepEqual(refused, [], 'npm ci would print EBADENGINE for these');
  });
}

test('light-my-request (app.inject) sends the cookies it is given, with the pinned cookie package', async () => {
  const app = Fastify();
  app.get('/', (request) => ({ cookie: request.headers.cookie ?? null }));
  const res = await app.inject({ url: '/', cookies: { session: 'a b;c', plain: 'v1' } });
  assert.equal(res.statusCode, 200);
  const sent = (res.json() as { cookie: string }).cookie;
  assert.match(sent, /session=a%20b%3Bc/);
  assert.match(sent, /plain=v1/);
  await app.close();
});

test('@fastify/static names a download in Content-Disposition, with the pinned content-disposition', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cos-static-'));
  writeFileSync(join(root, 'report.txt'), 'hello');
  const app = Fastify();
  await app.register(fastifyStatic, { root, serve: false });
  app.get('/plain', (_request, reply) => reply.download('report.txt'));
  app.get('/unicode', (_request, reply) => reply.download('report.txt', 'résumé €.txt'));
  const plain = await app.inject({ url: '/plain' });
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['content-disposition'], 'attachment; filename=report.txt');
  assert.equal(plain.body, 'hello');
  const unicode = await app.inject({ url: '/unicode' });
  assert.match(
    String(unicode.headers['content-disposition']),
    /filename\*=UTF-8''r%C3%A9sum%C3%A9%20%E2%82%AC\.txt/,
  );
  await app.close();
});
