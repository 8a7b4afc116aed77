// What tools/list says about each tool, and the answer itself, serialised once per module change.
//
// Every agent session pays for this listing before its first call, and some clients show all of it to
// the model, so it says each thing once and spends its bytes where an agent needs them (what a tool is
// for, and how to call it):
// - the output schema is an outline of the success envelope: the fields `data` always has (but `meta`,
//   which every answer has and the instructions say once). It accepts every answer the tool gives, and the full shape of each stays in OpenAPI
//   (/openapi.json). The error branch has no schema per tool: an error answer says `isError: true`, and
//   the envelope (`ok`, the error's category, retryable and message) and `meta`'s keys are described
//   once, in the server's instructions. The outline leaves room for the error envelope because the SDK
//   client validates structuredContent against outputSchema even when isError is set;
// - the input schema is written tightly (json-schema.ts);
// - the annotations leave out the title (the tool has its own), every hint that says what a client
//   assumes anyway, and those that mean something only for tools that write when the tool only reads.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { KindGuard, type TSchema } from '@sinclair/typebox';
import type { ModuleState } from '../modules.ts';
import type { AnyTool } from '../tools/define.ts';
import type { ToolProfile } from '../tools/profiles.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { toMcpJsonSchema } from './json-schema.ts';
import { readyResult } from './wire.ts';

type Json = Record<string, unknown>;

/**
 * The fields a success `data` always has, as `required`; a union outlines each branch. `meta`, which
 * every success has, is said once in the server's instructions rather than in each tool's list.
 */
function outline(schema: TSchema): Json {
  if (KindGuard.IsObject(schema)) {
    const required = (schema.required ?? []).filter((key) => key !== 'meta');
    return required.length > 0 ? { required } : {};
  }
  if (KindGuard.IsUnion(schema)) return { anyOf: schema.anyOf.map(outline) };
  // Lists, scalars and null carry no meta.
  const type = (schema as { type?: unknown }).type;
  return typeof type === 'string' ? { type } : {};
}

/** The schema tools/list gives one tool's answers (see the top of this file). */
export function outputSchemaOf(tool: AnyTool): Tool['outputSchema'] {
  return { type: 'object', properties: { data: outline(tool.output) } };
}

/** What a client assumes of a hint the tool leaves out (MCP 2025-11-25, ToolAnnotations). */
const HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

function annotationsOf(tool: AnyTool): Tool['annotations'] {
  const hints: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(tool.annotations ?? {})) {
    if (value === undefined || value === HINT_DEFAULTS[key as keyof typeof HINT_DEFAULTS]) continue;
    // Whether a tool destroys or repeats safely means something only for a tool that writes.
    if (tool.annotations?.readOnlyHint && (key === 'destructiveHint' || key === 'idempotentHint')) continue;
    hints[key] = value;
  }
  return Object.keys(hints).length > 0 ? hints : undefined;
}

const listings = new WeakMap<AnyTool, Tool>();

/** One tool as tools/list shows it; built once per tool. */
export function listingOf(tool: AnyTool): Tool {
  let listing = listings.get(tool);
  if (!listing) {
    const annotations = annotationsOf(tool);
    listing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toMcpJsonSchema(tool.input) as Tool['inputSchema'],
      outputSchema: outputSchemaOf(tool),
      ...(annotations ? { annotations } : {}),
    };
    listings.set(tool, listing);
  }
  return listing;
}

/**
 * The JSON of tools/list's result (`{"tools":[…]}`) for each profile and set of enabled modules, built
 * the first time it is asked for and kept: it changes only when a module is turned on or off, and the
 * key names the enabled modules, so a change simply asks for another entry (at most 2^modules each).
 */
export class ToolListings {
  private readonly cache = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly modules: ModuleState,
  ) {}

  /** The tools a session of this profile sees now. */
  tools(profile: ToolProfile): AnyTool[] {
    return this.registry.enabled(this.modules).filter((tool) => profile.has(tool));
  }

  /** tools/list's result for a profile, kept ready to send (wire.ts: its JSON, and its gzip once asked). */
  result(profile: ToolProfile): Record<string, unknown> {
    const tools = this.tools(profile);
    const key = `${profile.name}\u0000${tools.map((t) => t.name).join(',')}`;
    let result = this.cache.get(key);
    if (result === undefined) {
      result = readyResult(JSON.stringify({ tools: tools.map(listingOf) }));
      this.cache.set(key, result);
    }
    return result;
  }
}

/** A listing of the given tools, outside any hub (tests and benchmarks measure it). */
export function listingJson(tools: readonly AnyTool[]): string {
  return JSON.stringify({ tools: tools.map(listingOf) });
}
