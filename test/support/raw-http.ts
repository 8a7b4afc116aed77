// One request sent exactly as written (node:http with the path untouched: fetch would normalise it and
// hide every spelling a test means to send), and whether its answer came from a route's handler. Used by
// the access tests and the fuzz family `paths`.
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  type: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One raw request; an event stream is read up to its first chunk, then dropped. */
export function rawCall(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        setHost: false,
        agent: false,
      },
      (res) => {
        const type = String(res.headers['content-type'] ?? '');
        let body = '';
        res.setEncoding('utf8');
        const done = () => resolve({ status: res.statusCode ?? 0, type, body, headers: res.headers });
        res.on('data', (chunk: string) => {
          body += chunk;
          if (type.startsWith('text/event-stream')) {
            done();
            req.destroy();
          }
        });
        res.on('end', done);
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end(options.body);
  });
}

/** Whether an answer came from a protected route's handler rather than from "no such route". */
export function reachedHandler(a: RawAnswer): boolean {
  if (a.type.startsWith('text/event-stream') || a.type.startsWith('text/plain')) return true;
  if (!a.type.startsWith('application/json')) return false;
  const body = JSON.parse(a.body) as { data?: unknown; result?: unknown; jsonrpc?: unknown };
  return body.data !== undefined || body.result !== undefined || body.jsonrpc !== undefined;
}
