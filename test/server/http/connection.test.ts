// Below the router: a request dripped too slowly is cut off, and the answers Node gives by itself (400 for
// a request it cannot parse, 431 for oversized headers, 408 for a slow request) carry the error envelope
// and close the connection. Raw TCP, because an HTTP client would refuse to send most of these.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestHub, type TestHub } from '../../support/hub.ts';

interface Raw {
  status: number;
  headers: string;
  body: string;
  /** Milliseconds from the first byte sent to the connection's end. */
  ms: number;
}

/** Sends `chunks` (strings, or waits in ms) over one TCP connection and reads until the hub closes it. */
function raw(port: number, chunks: (string | number)[], giveUpMs = 10_000): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const t0 = performance.now();
    let text = '';
    let closed = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${giveUpMs} ms; got ${JSON.stringify(text)}`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0),
        headers: head,
        body,
        ms: performance.now() - t0,
      });
    });
    void (async () => {
      for (const c of chunks) {
        if (closed) return;
        if (typeof c === 'number') await new Promise((r) => setTimeout(r, c));
        else socket.write(c);
      }
    })();
  });
}

describe('requests Node answers by itself', () => {
  let t: TestHub;
  let port: number;
  before(async () => {
    t = await startTestHub({
      env: { COS_REQUEST_TIMEOUT_MS: '1000', COS_RATE_LIMIT_RPS: '0' },
      withoutServices: true,
      listen: true,
    });
    port = Number(new URL(t.url).port);
  });
  after(() => t.close());

  test('a body dripped a byte at a time is cut off after the request timeout, with a transient envelope', async () => {
    const head = `POST /api/memory/observations HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n`;
    const drip: (string | number)[] = [head];
    for (let i = 0; i < 60; i++) drip.push(' ', 100);
    const res = await raw(port, drip, 8_000);
    assert.equal(res.status, 408, res.headers);
    assert.ok(res.ms < 4_000, `cut after ${res.ms} ms`);
    const body = JSON.parse(res.body) as {
      ok: boolean;
      error: { category: string; retryable: boolean; message: string };
    };
    assert.equal(body.error.category, 'transient');
    assert.equal(body.error.retryable, true);
    assert.match(body.error.message, /did not arrive within 1 s/);
    assert.match(res.headers, /connection: close/i);
  });

  test('headers dripped forever are cut off too', async () => {
    const drip: (string | number)[] = [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`];
    for (let i = 0; i < 60; i++) drip.push(`X-${i}: y\r\n`, 100);
    const res = await raw(port, drip, 8_000);
    assert.equal(res.status, 408, res.headers);
    assert.equal(JSON.parse(res.body).error.category, 'transient');
  });

  test('a request Node cannot parse answers 400 with a validation envelope and closes', async () => {
    const res = await raw(port, [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nNot a header\r\n\r\n`]);
    assert.equal(res.status, 400, res.headers);
    const body = JSON.parse(res.body) as { ok: boolean; error: { category: string; message: string } };
    assert.equal(body.ok, false);
    assert.equal(body.error.category, 'validation');
    assert.match(body.error.message, /not valid HTTP/);
    assert.match(res.headers, /connection: close/i);
    assert.match(res.headers, /content-type: application\/json/i);
  });

  test('oversized headers answer 431 with a validation envelope', async () => {
    const res = await raw(port, [
      `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    assert.equal(res.status, 431, res.headers);
    const body = JSON.parse(res.body) as { error: { category: string; message: string } };
    assert.equal(body.error.category, 'validation');
    assert.match(body.error.message, /headers are larger/);
  });

  test('a request that arrives whole is not affected, and event streams outlive the request timeout', async () => {
    const res = await raw(port, [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`]);
    assert.equal(res.status, 200, res.headers);
    const stream = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (text += c));
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`the stream was closed: ${text}`)));
      socket.write(`GET /api/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      setTimeout(() => {
        socket.removeAllListeners('close');
        socket.destroy();
        resolve(text);
      }, 2_500);
    });
    assert.match(stream, /^HTTP\/1\.1 200/);
    assert.match(stream, /event: connected/);
  });
});
