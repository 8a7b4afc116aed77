import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CATEGORIES, type ErrorCategory, fail } from '../../../shared/envelope/index.ts';

describe('fail()', () => {
  it('defaults retryable to true only for transient and unavailable', () => {
    const retryable = Object.fromEntries(ERROR_CATEGORIES.map((c) => [c, fail(c, 'x').error.retryable]));
    assert.deepEqual(retryable, {
      transient: true,
      validation: false,
      permission: false,
      not_found: false,
      unavailable: true,
      internal: false,
      module_disabled: false,
    });
  });

  it('lets an explicit retryable win over the default', () => {
    assert.equal(fail('transient', 'x', { retryable: false }).error.retryable, false);
    assert.equal(fail('validation', 'x', { retryable: true }).error.retryable, true);
  });

  it('returns exactly { ok: false, error: { category, retryable, message } } with no data key', () => {
    const envelope = fail('not_found', 'no task named TASK-9');
    assert.deepEqual(envelope, {
      ok: false,
      error: { category: 'not_found', retryable: false, message: 'no task named TASK-9' },
    });
    assert.equal(Object.hasOwn(envelope, 'data'), false);
  });

  it('throws on an unknown category (a programming error, not an envelope)', () => {
    assert.throws(() => fail('bogus' as ErrorCategory, 'x'), TypeError);
    assert.throws(() => fail('unauthorized' as ErrorCategory, 'x'), TypeError);
    assert.throws(() => fail('rate_limited' as ErrorCategory, 'x'), TypeError);
  });
});
