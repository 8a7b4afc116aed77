// HTTP to a running hub for the CLI: JSON requests with the bearer token when one is configured, and the
// live event stream. node:http rather than fetch: a full `cos index` can outlast fetch's five-minute
// header timeout, and a request here is one the person is waiting for anyway.
import { type IncomingMessage, request } from 'node:http';

export interface HubTarget {
  url: string;
  token: string | undefined;
}

export interface HubAnswer {
  status: number;
  /** The parsed JSON body, when the body is JSON. */
  body: unknown;
}

function headers(target: HubTarget, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(target.token ? { authorization: `Bearer ${target.token}` } : {}), ...extra };
}

export function hubRequest(
  target: HubTarget,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  options: { timeoutMs?: number } = {},
): Promise<HubAnswer> {
  const url = new URL(path, target.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: headers(target, {
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        }),
        ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${target.url} within ${options.timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The `data` of a REST success, or the error envelope's message (with its category) as an Error. */
export function unwrap<T>(answer: HubAnswer, what: string): T {
  const body = answer.body as { data?: T; error?: { category?: string; message?: string } } | undefined;
  if (answer.status === 200 && body?.data !== undefined) return body.data;
  const error = body?.error;
  throw new HubError(
    error?.message ? `${error.message}` : `${what}: the hub answered ${answer.status}`,
    error?.category,
  );
}

export class HubError extends Error {
  constructor(
    message: string,
    readonly category: string | undefined,
  ) {
    super(message);
  }
}

export interface StreamEvent {
  event: string;
  data: unknown;
}

/**
 * Subscribes to the hub's live stream (`/api/stream/events`) and hands each event over as it arrives.
 * Resolves once the stream is open, so that nothing the caller triggers next can be missed.
 */
export function openEventStream(
  target: HubTarget,
  onEvent: (e: StreamEvent) => void,
): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/api/stream/events', target.url),
      { headers: headers(target, { accept: 'text/event-stream' }) },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`the hub's event stream answered ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length === 0) continue;
            try {
              onEvent({ event, data: JSON.parse(data.join('\n')) });
            } catch {
              // Not JSON: not an event this client reads.
            }
          }
        });
        res.on('error', () => {});
        resolve({ close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
