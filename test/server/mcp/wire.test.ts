// The spliced JSON-RPC answer must be byte for byte what JSON.stringify would have sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { messageBody, messageJson, readyGzip, readyResult, toCallResult } from '../../../server/mcp/wire.ts';
import { fail, okWithText } from '../../../shared/envelope/index.ts';

const answer = (id: string | number, result: unknown) => ({ result, jsonrpc: '2.0', id });

describe('MCP wire: tools/call answers spliced from the envelope text', () => {
  it('equals JSON.stringify of the same message for any payload and id', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
        fc.oneof(fc.string({ unit: 'binary' }), fc.integer()),
        (data, id) => {
          const { envelope, text, textBytes } = okWithText(data);
          const message = answer(id, toCallResult(envelope, text ?? JSON.stringify(envelope), textBytes));
          assert.equal(messageJson(message), JSON.stringify(message));
          assert.equal(messageBody(message).toString(), JSON.stringify(message));
          // The same without the byte count (the path of answers ok() did not measure whole).
          const uncounted = answer(id, toCallResult(envelope, text ?? JSON.stringify(envelope)));
          assert.equal(messageBody(uncounted).toString(), JSON.stringify(uncounted));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('error envelopes say isError: true', () => {
    const envelope = fail('validation', 'limit: "expected" \u2028 a number');
    const json = messageJson(answer(7, toCallResult(envelope)));
    assert.equal(json, JSON.stringify(answer(7, toCallResult(envelope))));
    assert.equal(JSON.parse(json).result.isError, true);
  });

  it('serialises anything it cannot splice the ordinary way', () => {
    const result = toCallResult(fail('not_found', 'no such task'));
    const extra = { ...answer(1, { ...result, _meta: { a: 1 } }) };
    assert.equal(messageJson(extra), JSON.stringify(extra));
    assert.equal(messageBody(extra), JSON.stringify(extra));
    const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } };
    assert.equal(messageJson(notification), JSON.stringify(notification));
  });
});

describe('MCP wire: a result kept ready (tools/list)', () => {
  it('is written as its JSON, and its gzip decodes to the same bytes, whatever the id', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
        fc.oneof(fc.string({ unit: 'binary' }), fc.integer()),
        (value, id) => {
          const ready = readyResult(JSON.stringify({ tools: value }));
          const message = answer(id, ready);
          const expected = JSON.stringify(answer(id, { tools: value }));
          assert.equal(messageJson(message), expected);
          assert.equal(messageBody(message).toString(), expected);
          assert.equal(gunzipSync(readyGzip(message)!).toString(), expected);
          // The head is compressed once and kept; a second answer of the same result reuses it.
          const again = answer(typeof id === 'number' ? id + 1 : `${id}!`, ready);
          assert.equal(
            gunzipSync(readyGzip(again)!).toString(),
            JSON.stringify(answer(again.id, { tools: value })),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('compresses a large listing well, and only the answers kept ready', () => {
    const big = {
      tools: Array.from({ length: 60 }, (_, i) => ({ name: `cos_tool_${i}`, description: 'x '.repeat(200) })),
    };
    const message = answer(1, readyResult(JSON.stringify(big)));
    const gz = readyGzip(message)!;
    assert.ok(gz.length < JSON.stringify(big).length / 10);
    assert.equal(readyGzip(answer(1, toCallResult(fail('not_found', 'x')))), undefined);
  });
});
