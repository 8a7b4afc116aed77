// A minimal Server-Sent Events reader over node:http, for tests of the live stream.
import { type ClientRequest, type IncomingMessage, request } from 'node:http';

export interface SseEvent {
  id?: number;
  event: string;
  data: unknown;
}

export interface SseClient {
  events: SseEvent[];
  response: IncomingMessage;
  /** Resolves once an event matching `predicate` has arrived. */
  waitFor(predicate: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
  closed: Promise<void>;
}

export function openSse(
  url: string,
  headers: Record<string, string> = {},
  options: { paused?: boolean } = {},
): Promise<SseClient> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        headers: { accept: 'text/event-stream', ...headers },
      },
      (res) => {
        if (res.statusCode !== 200) {
          // Say why, instead of a client that waits for events that will never come.
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () =>
            reject(new Error(`the stream answered ${res.statusCode}: ${body.slice(0, 300)}`)),
          );
          return;
        }
        const events: SseEvent[] = [];
        const waiters: { predicate: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
        let buffer = '';
        const closed = new Promise<void>((done) => res.on('close', () => done()));
        res.setEncoding('utf8');
        if (options.paused) res.pause();
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
            const e: Partial<SseEvent> & { lines: string[] } = { lines: [] };
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) e.id = Number(line.slice(4));
              else if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('data: ')) e.lines.push(line.slice(6));
            }
            if (!e.event) continue;
            const event: SseEvent = {
              event: e.event,
              data: JSON.parse(e.lines.join('\n')),
              ...(e.id === undefined ? {} : { id: e.id }),
            };
            events.push(event);
            for (const w of [...waiters]) {
              if (w.predicate(event)) {
                waiters.splice(waiters.indexOf(w), 1);
                w.resolve(event);
              }
            }
          }
        });
        resolve({
          events,
          response: res,
          closed,
          waitFor(predicate, timeoutMs = 5_000) {
            const found = events.find(predicate);
            if (found) return Promise.resolve(found);
            return new Promise((ok, fail) => {
              const timer = setTimeout(
                () =>
                  fail(
                    new Error(
                      `no matching event within ${timeoutMs} ms; got ${events.map((x) => x.event).join(', ')}`,
                    ),
                  ),
                timeoutMs,
              );
              waiters.push({
                predicate,
                resolve: (x) => {
                  clearTimeout(timer);
                  ok(x);
                },
              });
            });
          },
          close() {
            req.destroy();
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
