import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RateLimiter } from '../../../server/http/rate-limit.ts';
import { startTestHub, type TestHub } from '../../support/hub.ts';

describe('RateLimiter', () => {
  test('allows the burst, then the sustained rate, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [0, 0, 0]);
    assert.equal(limiter.take('a'), 500);
    assert.equal(limiter.take('b'), 0, 'clients have their own buckets');
    now += 500;
    assert.equal(limiter.take('a'), 0);
    assert.ok(limiter.take('a') > 0);
  });

  test('0 per second turns limiting off', () => {
    const limiter = new RateLimiter({ perSecond: 0, burst: 0 });
    for (let i = 0; i < 100; i++) assert.equal(limiter.take('a'), 0);
  });
});

describe('over HTTP', () => {
  let t: TestHub;
  before(async () => {
    t = await startTestHub({
      withoutServices: true,
      env: { COS_RATE_LIMIT_RPS: '1', COS_RATE_LIMIT_BURST: '3' },
    });
  });
  after(() => t.close());

  test('a burst beyond the limit answers 429 transient with Retry-After', async () => {
    const codes: number[] = [];
    let refused:
      | {
          statusCode: number;
          headers: Record<string, unknown>;
          json(): { error: { category: string; retryable: boolean } };
        }
      | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/health', headers: { host: '127.0.0.1' } });
      codes.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
    }
    assert.deepEqual(codes.slice(0, 3), [200, 200, 200]);
    assert.equal(codes[3], 429);
    assert.ok(refused);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.json().error.category, 'transient');
    assert.equal(refused.json().error.retryable, true);
  });
});
