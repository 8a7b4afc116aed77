// Path and query parameters are text; only text that is exactly an integer, a number or a boolean becomes
// one. Before, TypeBox's conversion read `DELETE /api/memory/observations/6.7` as "delete 6", and took
// 1e3, 0x5 and +5 as ids; each is now a `validation` error and nothing is touched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createMemoryService } from '../../../server/memory/service.ts';
import { memoryTools } from '../../../server/tools/memory/index.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';
import { testTools } from '../../support/tools.ts';

let t: TestHub;
const headers = { host: '127.0.0.1:9188' };
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

before(async () => {
  t = await startTestHub({
    tools: [...memoryTools, ...testTools],
    withoutServices: true,
    logger: pino({ level: 'silent' }),
  });
  t.hub.services.memory = createMemoryService({ db: t.hub.db });
  // Ids 1 to 1,000 exist, so every misread of a spelling below would land on a real observation.
  for (let i = 1; i <= 1000; i++) t.hub.services.memory.record({ title: `note ${i}`, type: 'fact' });
});
after(() => t.close());

const remaining = (ids: number[]) =>
  Promise.all(ids.map(async (id) => (await call('GET', `/api/memory/observations/${id}`)).statusCode));

const NOT_IDS = ['6.7', '6.0', '1e3', '0x5', '+5', '05', '%205', '5%20', '-0', '5abc', '0b11', 'Infinity'];

describe('path and query parameters', () => {
  test('a path id that is not exactly an id is a validation error, and nothing is deleted', async () => {
    for (const spelling of NOT_IDS) {
      for (const [method, body] of [
        ['DELETE', undefined],
        ['PATCH', { confidence: 0.5 }],
        ['GET', undefined],
      ] as const) {
        const res = await call(method, `/api/memory/observations/${spelling}`, body);
        assert.equal(res.statusCode, 400, `${method} ${spelling}: ${res.body}`);
        const { error } = res.json();
        assert.equal(error.category, 'validation', spelling);
        assert.match(error.message, /\bid\b/, spelling);
      }
    }
    // 6 (for 6.7 and 6.0), 1000 (1e3), 5 (0x5, +5, 05…) and 3 (0b11) are all still there.
    assert.deepEqual(await remaining([3, 5, 6, 1000]), [200, 200, 200, 200]);
  });

  test('an exact id still works on every method', async () => {
    assert.equal((await call('GET', '/api/memory/observations/7')).statusCode, 200);
    assert.equal((await call('PATCH', '/api/memory/observations/7', { confidence: 0.4 })).statusCode, 200);
    assert.equal((await call('DELETE', '/api/memory/observations/7')).statusCode, 200);
    assert.equal((await call('GET', '/api/memory/observations/7')).statusCode, 404);
  });

  test('query integers, numbers and booleans take only their exact spellings', async () => {
    assert.equal((await call('GET', '/api/test/echo?text=x&times=3&loud=true')).json().data.text, 'XXX');
    for (const bad of [
      'times=3.0',
      'times=1e1',
      'times=0x3',
      'times=+3',
      'times=%203',
      'loud=1',
      'loud=TRUE',
      'loud=yes',
    ]) {
      const res = await call('GET', `/api/test/echo?text=x&${bad}`);
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
      assert.equal(res.json().error.category, 'validation', bad);
    }
    const limit = await call('GET', '/api/memory/timeline?limit=1e3');
    assert.equal(limit.statusCode, 400, limit.body);
  });
});
