// Answers over 1 KB are compressed when the client accepts it: REST, OpenAPI, the SPA's assets and MCP.
// The real app over a real port, read with node:http so the bytes on the wire are what is checked.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { WEB_DIST } from '../../../server/app.ts';
import { negotiate } from '../../../server/mcp/compress.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

let t: TestHub;
before(async () => {
  t = await startTestHub({ tools: catalog, withoutServices: true, listen: true });
});
after(() => t.close());

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes as they crossed the wire. */
  raw: Buffer;
  /** The body decoded. */
  text: string;
}

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Wire> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const decoded =
            encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: decoded.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const get = (path: string, accept?: string) => send('GET', path, accept ? { 'accept-encoding': accept } : {});

describe('REST and OpenAPI', () => {
  test('a large answer is compressed with the encoding the client prefers, and decodes to the same body', async () => {
    const plain = await get('/openapi.json');
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, no compression');
    for (const encoding of ['br', 'gzip']) {
      const packed = await get('/openapi.json', `${encoding}, deflate`);
      assert.equal(packed.status, 200);
      assert.equal(packed.headers['content-encoding'], encoding);
      assert.match(String(packed.headers.vary), /accept-encoding/i);
      assert.equal(packed.text, plain.text);
      assert.ok(
        packed.raw.length < plain.raw.length / 4,
        `${encoding}: ${packed.raw.length} of ${plain.raw.length}`,
      );
    }
  });

  test('a REST tool answer over 1 KB is compressed; one under it is not', async () => {
    const big = await get('/api/settings/mcp-profiles', 'gzip');
    assert.ok(big.text.length > 1024, `${big.text.length} bytes`);
    assert.equal(big.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(big.text).data.profiles.length, 4);
    const small = await get('/api/settings/modules?nope=1', 'gzip');
    assert.ok(small.text.length < 1024, small.text);
    assert.equal(small.headers['content-encoding'], undefined);
  });
});

describe('the SPA', () => {
  const assets = existsSync(join(WEB_DIST, 'assets'))
    ? readdirSync(join(WEB_DIST, 'assets')).filter((f) => f.endsWith('.js'))
    : [];
  test('its scripts are compressed', {
    skip: assets.length === 0 && 'web/dist is not built (npm run build)',
  }, async () => {
    const plain = await get(`/assets/${assets[0]}`);
    const packed = await get(`/assets/${assets[0]}`, 'br, gzip');
    assert.equal(packed.status, 200);
    assert.equal(packed.headers['content-encoding'], 'br');
    assert.equal(packed.text, plain.text);
    assert.ok(packed.raw.length < plain.raw.length / 2);
  });
});

describe('MCP', () => {
  const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let session = '';
  before(async () => {
    const init = await send(
      'POST',
      '/mcp',
      MCP,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'wire', version: '1' },
        },
      }),
    );
    session = String(init.headers['mcp-session-id']);
  });
  const rpc = (body: unknown, accept?: string) =>
    send(
      'POST',
      '/mcp',
      { ...MCP, 'mcp-session-id': session, ...(accept ? { 'accept-encoding': accept } : {}) },
      JSON.stringify(body),
    );

  test('tools/list is compressed when the client accepts it, to the same JSON', async () => {
    const plain = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(plain.headers['content-encoding'], undefined);
    const packed = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'gzip, deflate');
    assert.equal(packed.headers['content-encoding'], 'gzip');
    assert.equal(Number(packed.headers['content-length']), packed.raw.length);
    assert.equal(packed.text, plain.text);
    assert.ok(packed.raw.length < plain.raw.length / 4, `${packed.raw.length} of ${plain.raw.length}`);
  });

  test('a small answer goes uncompressed, and so does a streamed one', async () => {
    const ping = await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, 'br, gzip');
    assert.equal(ping.headers['content-encoding'], undefined);
    const streamed = await rpc(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'cos_health', arguments: {}, _meta: { progressToken: 1 } },
      },
      'br, gzip',
    );
    assert.match(String(streamed.headers['content-type']), /text\/event-stream/);
    assert.equal(streamed.headers['content-encoding'], undefined);
  });

  test('Accept-Encoding is read the way HTTP means it', () => {
    assert.equal(negotiate('gzip, deflate'), 'gzip');
    assert.equal(negotiate('br;q=1.0, gzip;q=0.8'), 'br');
    assert.equal(negotiate('br;q=0, gzip'), 'gzip');
    assert.equal(negotiate('*'), 'gzip');
    assert.equal(negotiate('identity'), undefined);
    assert.equal(negotiate(undefined), undefined);
  });
});
