// Typed errors a tool handler throws for the expected cases; runTool turns them into fail() envelopes.
import type { ErrorCategory } from '../../shared/envelope/index.ts';

export class ToolError extends Error {
  readonly category: ErrorCategory;
  readonly retryable: boolean | undefined;

  /**
   * @param message what was wrong and what to do; never an absolute path, SQL text or a stack.
   * @param retryable overrides the category's default (only transient and unavailable default to true).
   */
  constructor(
    category: ErrorCategory,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ToolError';
    this.category = category;
    this.retryable = options.retryable;
  }
}

export const notFound = (message: string) => new ToolError('not_found', message);
export const invalid = (message: string) => new ToolError('validation', message);
