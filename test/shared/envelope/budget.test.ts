import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  budgetSize,
  estimateTokens,
  GRAPH_SUBGRAPH_BUDGET_CHARS,
  TOKEN_BUDGET_CHARS,
} from '../../../shared/envelope/index.ts';

describe('estimateTokens and budgetSize', () => {
  it('counts about four ASCII characters per token', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcd'), 1);
    assert.equal(estimateTokens('abcde'), 2);
    assert.equal(estimateTokens('x'.repeat(4000)), 1000);
  });

  it('counts every non-ASCII character as one token (CJK, Arabic, Cyrillic)', () => {
    assert.equal(estimateTokens('函数调用'), 4);
    assert.equal(estimateTokens('مرحبا'), 5);
    assert.equal(estimateTokens('привет'), 6);
    assert.equal(estimateTokens('ab函数'), 3);
  });

  it('counts control characters as ASCII and each half of a surrogate pair as one token', () => {
    assert.equal(estimateTokens('\u0001\n\t\u007f'), 1);
    assert.equal(estimateTokens('a😀'), 3);
    assert.equal(estimateTokens(`${'x'.repeat(8)}文${'y'.repeat(4)}ж`), 5);
  });

  it('sizes ASCII by its length and non-Latin text by four per token', () => {
    assert.equal(budgetSize('x'.repeat(1001)), 1004);
    assert.equal(budgetSize('x'.repeat(1000)), 1000);
    assert.equal(budgetSize('文'.repeat(1000)), 4000);
  });

  it('exports the contract budgets', () => {
    assert.equal(TOKEN_BUDGET_CHARS, 32_000);
    assert.equal(GRAPH_SUBGRAPH_BUDGET_CHARS, 5_000_000);
  });
});
