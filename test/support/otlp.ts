// A real OTLP/HTTP receiver for tests: a node:http server taking what the OpenTelemetry exporters post to
// /v1/traces and /v1/metrics, as JSON (http/json) or protobuf (http/protobuf), decoded into one plain
// shape so a test asserts on spans and metrics whichever protocol carried them. The protobuf wire format
// is read with otlp-transformer's own reader (the SDK ships no schema for requests, only the writer);
// the field numbers are those of opentelemetry-proto's trace/v1 and metrics/v1 messages.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

export type AttrValue = string | number | boolean | AttrValue[] | null;
export type Attrs = Record<string, AttrValue>;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Nanoseconds since the epoch, as a bigint (they pass 2^53). */
  startNs: bigint;
  endNs: bigint;
  attributes: Attrs;
  status: { code: number; message: string };
  events: { name: string; attributes: Attrs }[];
  resource: Attrs;
  scope: string;
}

export interface ReceivedPoint {
  attributes: Attrs;
  /** A sum's or gauge's value; undefined for a histogram point. */
  value?: number;
  /** A histogram point's. */
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  bounds?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: 'gauge' | 'sum' | 'histogram' | 'other';
  points: ReceivedPoint[];
  resource: Attrs;
}

export interface OtlpRequest {
  path: string;
  contentType: string;
  headers: IncomingMessage['headers'];
}

export type ReceiverMode = 'accept' | 'refuse' | 'hang';

export interface OtlpReceiver {
  url: string;
  port: number;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  requests: OtlpRequest[];
  /** accept: 200; refuse: 503 (retryable, so the exporter retries until its timeout); hang: never answers. */
  mode: ReceiverMode;
  /** Resolves once `predicate` holds over what arrived (polled), or rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Protobuf

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Fields of one message: number → raw values (varint as bigint, fixed as bytes, length-delimited as bytes). */
type Fields = Map<number, (bigint | Uint8Array)[]>;

function fields(buf: Uint8Array): Fields {
  const out: Fields = new Map();
  const r = new ProtobufReader(buf);
  const push = (n: number, v: bigint | Uint8Array) => {
    const list = out.get(n);
    if (list) list.push(v);
    else out.set(n, [v]);
  };
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag();
    switch (wireType) {
      case 0: {
        // Read the varint bytes ourselves: ProtobufReader's number loses int64 precision.
        let v = 0n;
        let shift = 0n;
        for (;;) {
          const byte = buf[r.pos++]!;
          v |= BigInt(byte & 0x7f) << shift;
          if ((byte & 0x80) === 0) break;
          shift += 7n;
        }
        push(fieldNumber, v);
        break;
      }
      case 1:
        push(fieldNumber, buf.subarray(r.pos, r.pos + 8));
        r.pos += 8;
        break;
      case 5:
        push(fieldNumber, buf.subarray(r.pos, r.pos + 4));
        r.pos += 4;
        break;
      case 2:
        push(fieldNumber, r.readBytes());
        break;
      default:
        r.skip(wireType);
    }
  }
  return out;
}

const bytesOf = (f: Fields, n: number): Uint8Array[] =>
  (f.get(n) ?? []).filter((v) => v instanceof Uint8Array);
const one = (f: Fields, n: number): Uint8Array | undefined => bytesOf(f, n)[0];
const text = (f: Fields, n: number): string => {
  const b = one(f, n);
  return b ? Buffer.from(b).toString('utf8') : '';
};
const varint = (f: Fields, n: number): bigint => {
  const v = f.get(n)?.[0];
  return typeof v === 'bigint' ? v : 0n;
};
const fixed64 = (b: Uint8Array | undefined): bigint => (b ? Buffer.from(b).readBigUInt64LE(0) : 0n);
const double = (b: Uint8Array | undefined): number => (b ? Buffer.from(b).readDoubleLE(0) : 0);
const int64 = (v: bigint): number => Number(BigInt.asIntN(64, v));

function anyValue(buf: Uint8Array): AttrValue {
  const f = fields(buf);
  if (f.has(1)) return text(f, 1);
  if (f.has(2)) return varint(f, 2) !== 0n;
  if (f.has(3)) return int64(varint(f, 3));
  if (f.has(4)) return double(one(f, 4));
  if (f.has(5)) return bytesOf(fields(one(f, 5)!), 1).map(anyValue);
  return null;
}

function protoAttrs(list: Uint8Array[]): Attrs {
  const out: Attrs = {};
  for (const kv of list) {
    const f = fields(kv);
    const value = one(f, 2);
    out[text(f, 1)] = value ? anyValue(value) : null;
  }
  return out;
}

function protoSpans(body: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of bytesOf(fields(body), 1)) {
    const rsf = fields(rs);
    const resourceBytes = one(rsf, 1);
    const resource = resourceBytes ? protoAttrs(bytesOf(fields(resourceBytes), 1)) : {};
    for (const ss of bytesOf(rsf, 2)) {
      const ssf = fields(ss);
      const scopeBytes = one(ssf, 1);
      const scope = scopeBytes ? text(fields(scopeBytes), 1) : '';
      for (const sp of bytesOf(ssf, 2)) {
        const f = fields(sp);
        const statusBytes = one(f, 15);
        const status = statusBytes ? fields(statusBytes) : new Map();
        out.push({
          traceId: hex(one(f, 1) ?? new Uint8Array()),
          spanId: hex(one(f, 2) ?? new Uint8Array()),
          parentSpanId: hex(one(f, 4) ?? new Uint8Array()),
          name: text(f, 5),
          kind: Number(varint(f, 6)),
          startNs: fixed64(one(f, 7)),
          endNs: fixed64(one(f, 8)),
          attributes: protoAttrs(bytesOf(f, 9)),
          events: bytesOf(f, 11).map((e) => {
            const ef = fields(e);
            return { name: text(ef, 2), attributes: protoAttrs(bytesOf(ef, 3)) };
          }),
          status: { code: Number(varint(status, 3)), message: text(status, 2) },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

function numberPoint(buf: Uint8Array): ReceivedPoint {
  const f = fields(buf);
  const value = f.has(4) ? double(one(f, 4)) : Number(BigInt.asIntN(64, fixed64(one(f, 6))));
  return { attributes: protoAttrs(bytesOf(f, 7)), value };
}

function packedFixed64(b: Uint8Array | undefined): bigint[] {
  const out: bigint[] = [];
  if (!b) return out;
  for (let i = 0; i + 8 <= b.length; i += 8) out.push(Buffer.from(b.subarray(i, i + 8)).readBigUInt64LE(0));
  return out;
}

function histogramPoint(buf: Uint8Array): ReceivedPoint {
  const f = fields(buf);
  const doubles = packedFixed64(one(f, 7)).map((v) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    return b.readDoubleLE(0);
  });
  return {
    attributes: protoAttrs(bytesOf(f, 9)),
    count: Number(fixed64(one(f, 4))),
    sum: double(one(f, 5)),
    bucketCounts: packedFixed64(one(f, 6)).map(Number),
    bounds: doubles,
  };
}

function protoMetrics(body: Uint8Array): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of bytesOf(fields(body), 1)) {
    const rmf = fields(rm);
    const resourceBytes = one(rmf, 1);
    const resource = resourceBytes ? protoAttrs(bytesOf(fields(resourceBytes), 1)) : {};
    for (const sm of bytesOf(rmf, 2)) {
      for (const m of bytesOf(fields(sm), 2)) {
        const f = fields(m);
        const base = { name: text(f, 1), unit: text(f, 3), resource };
        const gauge = one(f, 5);
        const sum = one(f, 7);
        const histogram = one(f, 9);
        if (gauge) out.push({ ...base, kind: 'gauge', points: bytesOf(fields(gauge), 1).map(numberPoint) });
        else if (sum) out.push({ ...base, kind: 'sum', points: bytesOf(fields(sum), 1).map(numberPoint) });
        else if (histogram)
          out.push({ ...base, kind: 'histogram', points: bytesOf(fields(histogram), 1).map(histogramPoint) });
        else out.push({ ...base, kind: 'other', points: [] });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// JSON (OTLP/JSON: ids in hex, 64-bit integers as strings or numbers)

interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}

function jsonValue(v: JsonAnyValue | undefined): AttrValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(jsonValue);
  return null;
}

const jsonAttrs = (list: JsonKeyValue[] | undefined): Attrs =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

/** Ids in OTLP/JSON are hex; an exporter that sent base64 would be caught here. */
const jsonId = (id: string | undefined): string => {
  if (!id) return '';
  if (!/^[0-9a-f]*$/i.test(id)) throw new Error(`OTLP/JSON id is not hex: ${id}`);
  return id.toLowerCase();
};

// biome-ignore lint/suspicious/noExplicitAny: the OTLP/JSON document as parsed, walked field by field
type Json = any;

function jsonSpans(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const sp of ss.spans ?? []) {
        out.push({
          traceId: jsonId(sp.traceId),
          spanId: jsonId(sp.spanId),
          parentSpanId: jsonId(sp.parentSpanId),
          name: sp.name ?? '',
          kind: Number(sp.kind ?? 0),
          startNs: BigInt(sp.startTimeUnixNano ?? 0),
          endNs: BigInt(sp.endTimeUnixNano ?? 0),
          attributes: jsonAttrs(sp.attributes),
          events: (sp.events ?? []).map((e: Json) => ({ name: e.name, attributes: jsonAttrs(e.attributes) })),
          status: { code: Number(sp.status?.code ?? 0), message: sp.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function jsonMetrics(body: Json): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  const numberPoints = (points: Json[] | undefined): ReceivedPoint[] =>
    (points ?? []).map((p) => ({
      attributes: jsonAttrs(p.attributes),
      value: p.asDouble !== undefined ? Number(p.asDouble) : Number(p.asInt ?? 0),
    }));
  for (const rm of body.resourceMetrics ?? []) {
    const resource = jsonAttrs(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const base = { name: m.name, unit: m.unit ?? '', resource };
        if (m.gauge) out.push({ ...base, kind: 'gauge', points: numberPoints(m.gauge.dataPoints) });
        else if (m.sum) out.push({ ...base, kind: 'sum', points: numberPoints(m.sum.dataPoints) });
        else if (m.histogram)
          out.push({
            ...base,
            kind: 'histogram',
            points: (m.histogram.dataPoints ?? []).map((p: Json) => ({
              attributes: jsonAttrs(p.attributes),
              count: Number(p.count ?? 0),
              sum: Number(p.sum ?? 0),
              bucketCounts: (p.bucketCounts ?? []).map(Number),
              bounds: (p.explicitBounds ?? []).map(Number),
            })),
          });
        else out.push({ ...base, kind: 'other', points: [] });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const hanging = new Set<() => void>();
  const receiver: OtlpReceiver = {
    url: '',
    port: 0,
    spans: [],
    metrics: [],
    requests: [],
    mode: 'accept',
    async waitFor(predicate, timeoutMs = 10_000, what = 'the expected telemetry') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(
            `${what} did not arrive within ${timeoutMs} ms (spans: ${receiver.spans.map((s) => s.name).join(', ')}; metrics: ${[...new Set(receiver.metrics.map((m) => m.name))].join(', ')})`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: async () => {
      for (const end of hanging) end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const contentType = String(req.headers['content-type'] ?? '');
      const path = req.url ?? '';
      receiver.requests.push({ path, contentType, headers: req.headers });
      if (receiver.mode === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      if (receiver.mode === 'refuse') {
        res.writeHead(503).end();
        return;
      }
      const json = contentType.includes('json');
      if (path === '/v1/traces')
        receiver.spans.push(...(json ? jsonSpans(JSON.parse(body.toString('utf8'))) : protoSpans(body)));
      else if (path === '/v1/metrics')
        receiver.metrics.push(
          ...(json ? jsonMetrics(JSON.parse(body.toString('utf8'))) : protoMetrics(body)),
        );
      else {
        res.writeHead(404).end();
        return;
      }
      // An empty ExportTraceServiceResponse: `{}` in JSON, zero bytes in protobuf.
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
