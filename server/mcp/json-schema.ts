// TypeBox schemas are JSON Schema already; MCP clients compile each tool's schemas separately, so nested
// `$id`s (which let OpenAPI name components) must go: a second schema with the same `$id` would make
// the client's validator refuse it.
import type { TSchema } from '@sinclair/typebox';

export function toMcpJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value)) as Record<
    string,
    unknown
  >;
}
