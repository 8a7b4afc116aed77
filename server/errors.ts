// The errors every layer shares. Domain services and stores throw ToolError for the expected cases (not
// found, invalid input, a conflict); runTool turns it into a fail() envelope. It lives here, below the
// domain services, so a service never imports from the tools layer above it.
import { randomBytes } from 'node:crypto';
import type { ErrorCategory } from '../shared/envelope/index.ts';

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

/** The id an unexpected error is logged under; the envelope quotes only this, never the stack. */
export function newErrorId(): string {
  return `E-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
