// What every agent session pays for, held to its budgets: tools/list with every module on (and the core
// profile), and every tool's default answer over MCP on a fixed corpus. The real hub with every service
// serves a git repository of code, docs, task files and memory; the official SDK Client calls it over a
// real port, so each answer also passes the client's own outputSchema check, success and error alike.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Value } from '@sinclair/typebox/value';
import { type Call, defaultCalls, FIRST_TASK, seedCalls, writeCorpus } from '../../../scripts/lib/answers.ts';
import { listingJson, listingOf } from '../../../server/mcp/listing.ts';
import { catalog } from '../../../server/tools/catalog.ts';
import { PROFILES } from '../../../server/tools/profiles.ts';
import { budgetSize, okEnvelopeSchema, TOKEN_BUDGET_CHARS } from '../../../shared/envelope/index.ts';
import { connectClient, startTestHub, type TestHub } from '../../support/hub.ts';

/**
 * The budgets of issue 17: tools/list with every module on, and with the core profile. Every module's
 * listing grew by issue 29's coordination (file reservations: three tools and `reserve` on the two
 * claims; messages: three; the handoff: one), each with the shortest description that still says what
 * it does, past the 40,000 it had 19 bytes left of; issue 30's cos_cost_report (about 870 bytes) past the
 * 45,000 that left 600 of; issue 31's repository map three graph tools (overview, communities, ranking:
 * about 2,100 bytes together) and its API surface (cos_graph_api_surface and cos_graph_entrypoints, about
 * 1,230 bytes, and the surface kinds and the `handles` edge in the graph tools' enums, about 130) past the
 * 46,000. An agent that needs a small listing asks for the core profile, whose budget stays.
 */
const ALL_BYTES = 49_500;
const CORE_BYTES = 12_000;
/** No one tool may take more than this of the listing (the largest today are about 1,400). */
const TOOL_BYTES = 1_600;

// biome-ignore lint/suspicious/noExplicitAny: answers are drilled into by shape
type Env = any;

const mcpTools = catalog.filter((t) => t.mcp !== false);
/** tools/list's whole answer: the result inside its JSON-RPC envelope. */
const answerBytes = (tools: typeof mcpTools) =>
  Buffer.byteLength(`{"result":${listingJson(tools)},"jsonrpc":"2.0","id":1}`);

describe('tools/list size', () => {
  const sizes = mcpTools
    .map((tool) => ({ name: tool.name, bytes: JSON.stringify(listingOf(tool)).length }))
    .sort((a, b) => b.bytes - a.bytes);
  const largest = sizes
    .slice(0, 5)
    .map((s) => `${s.name} ${s.bytes}`)
    .join(', ');

  test(`with every module on it is at most ${ALL_BYTES} bytes`, () => {
    const bytes = answerBytes(mcpTools);
    assert.ok(bytes <= ALL_BYTES, `tools/list is ${bytes} bytes; the largest tools: ${largest}`);
  });

  test(`the core profile is at most ${CORE_BYTES} bytes`, () => {
    const core = mcpTools.filter((tool) => PROFILES.core.has(tool));
    const bytes = answerBytes(core);
    assert.ok(bytes <= CORE_BYTES, `core is ${bytes} bytes: ${core.map((t) => t.name).join(', ')}`);
  });

  test('every required list names each field once (JSON Schema requires it, and repeats cost bytes)', () => {
    const repeated: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        node.forEach((n, i) => {
          visit(n, `${at}/${i}`);
        });
        return;
      }
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'required' && Array.isArray(value) && new Set(value).size !== value.length)
          repeated.push(`${at}: ${value.join(', ')}`);
        else visit(value, `${at}/${key}`);
      }
    };
    for (const tool of mcpTools) visit(listingOf(tool), tool.name);
    assert.deepEqual(repeated, []);
  });

  test(`no tool takes more than ${TOOL_BYTES} bytes of it`, () => {
    const over = sizes.filter((s) => s.bytes > TOOL_BYTES);
    assert.deepEqual(
      over.map((s) => `${s.name} ${s.bytes}`),
      [],
      'these tools are over their share: shorten their descriptions or arguments',
    );
  });
});

let t: TestHub;
let client: Client;
const answers = new Map<string, { env: Env; size: number }>();
/** Tools defaultCalls leaves out, called with no arguments. */
const unplanned: string[] = [];

async function call({ tool, args }: Call): Promise<{ env: Env; size: number; isError: boolean }> {
  // callTool validates structuredContent against the tool's outputSchema (it throws when it does not fit).
  const res = await client.callTool({ name: tool, arguments: args });
  const text = (res.content as { type: string; text: string }[])[0]!.text;
  assert.deepEqual(JSON.parse(text), res.structuredContent, `${tool}: the text is the structured content`);
  return { env: res.structuredContent, size: budgetSize(text), isError: res.isError === true };
}

before(async () => {
  t = await startTestHub({ env: { COS_REPO: 'repo', COS_STATE_DIR: 'state' } });
  mkdirSync(t.config.repo, { recursive: true });
  const plan = writeCorpus(t.config.repo, 'test');
  await t.hub.start();
  await t.hub.services.graph.ready();
  await t.listen();
  client = await connectClient(t.url);
  await client.listTools();
  const recorded: number[] = [];
  for (const seed of seedCalls('test')) {
    const { env } = await call(seed);
    assert.equal(env.ok, true, `${seed.tool}: ${JSON.stringify(env)}`);
    if (env.data.observation) recorded.push(env.data.observation.id);
  }
  const agent = (client.transport as unknown as { sessionId: string }).sessionId;
  // A message to this session, for cos_message_ack to take.
  const sent = await call({ tool: 'cos_message_send', args: { to: agent, body: 'Ack this one.' } });
  assert.equal(sent.env.ok, true, JSON.stringify(sent.env));
  const ids = {
    task: FIRST_TASK,
    observation: recorded[0]!,
    doomed: recorded[1]!,
    agent,
    message: sent.env.data.id as string,
  };
  const planned = defaultCalls(plan, ids);
  const named = new Set(planned.map((c) => c.tool));
  // Every other tool is called with no arguments.
  for (const tool of mcpTools) {
    if (named.has(tool.name)) continue;
    unplanned.push(tool.name);
    planned.push({ tool: tool.name, args: {} });
  }
  for (const c of planned) answers.set(c.tool, await call(c));
});
after(async () => {
  await client?.close();
  await t?.close();
});

describe('every tool, over MCP with its default arguments', () => {
  test('answers successfully (so the budgets below measure real answers)', () => {
    const failed = [...answers]
      .filter(([, a]) => !a.env.ok)
      .map(([name, a]) => `${name}: ${a.env.error.category}: ${a.env.error.message}`);
    assert.deepEqual(failed, []);
  });

  test(`fits the agent budget of ${TOKEN_BUDGET_CHARS} budget-chars, without the trimmer's last resort`, () => {
    const over = [...answers]
      .filter(([, a]) => a.size > TOKEN_BUDGET_CHARS || a.env.data?.meta?.envelope_unshrinkable)
      .map(([name, a]) => `${name}: ${a.size}`);
    assert.deepEqual(over, []);
  });

  test('answers the full shape its output schema declares (tools/list outlines it)', () => {
    const wrong: string[] = [];
    for (const tool of mcpTools) {
      const answer = answers.get(tool.name);
      if (!answer?.env.ok) continue;
      const schema = okEnvelopeSchema(tool.output);
      if (!Value.Check(schema, answer.env)) {
        const first = [...Value.Errors(schema, answer.env)][0];
        wrong.push(`${tool.name}: ${first?.path} ${first?.message}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('a tool with required arguments that has no default call is named', () => {
    const missing = mcpTools
      .filter((tool) => unplanned.includes(tool.name) && (tool.input.required ?? []).length > 0)
      .map((tool) => `${tool.name} needs ${tool.input.required!.join(', ')}: add it to defaultCalls`);
    assert.deepEqual(missing, []);
  });

  test('an error answer passes the SDK client too: isError, the error envelope as structured content', async () => {
    for (const tool of mcpTools) {
      const { env, isError } = await call({ tool: tool.name, args: { no_such_argument: 1 } });
      assert.equal(isError, true, tool.name);
      assert.equal(env.ok, false, tool.name);
      assert.equal(env.error.category, 'validation', tool.name);
      assert.match(env.error.message, /Accepted arguments/, tool.name);
    }
  });
});
