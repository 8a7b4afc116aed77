import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { CONNECT_CLIENTS, diffText, planConnect } from '../../hooks/connect.ts';
import { defineTool } from '../define.ts';

export const connectPlanTool = defineTool({
  name: 'cos_connect_plan',
  title: 'Connect a client',
  description:
    'What `cos connect <client>` would write into this project (or take out, with remove): each file as it would be afterwards, and the diff. Nothing is written.',
  module: 'kernel',
  layer: 'health',
  mcp: false,
  input: Type.Object(
    {
      client: Type.Union(CONNECT_CLIENTS.map((c) => Type.Literal(c))),
      hub_url: Type.Optional(
        Type.String({
          maxLength: 200,
          description: 'the hub URL agents use (default http://127.0.0.1:<port>)',
        }),
      ),
      remove: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    client: Type.String(),
    command: Type.String({ description: 'the command that applies it' }),
    files: Type.Array(
      Type.Object({
        path: Type.String(),
        exists: Type.Boolean(),
        after: Type.Union([Type.String(), Type.Null()], {
          description: 'the whole file afterwards; null: removed',
        }),
        diff: Type.String(),
      }),
    ),
    notes: Type.Array(Type.String()),
  }),
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/settings/connect/:client' },
  handler: (ctx, input) => {
    const { config } = ctx;
    let hubUrl = `http://127.0.0.1:${config.port}`;
    if (input.hub_url !== undefined) {
      let url: URL;
      try {
        url = new URL(input.hub_url);
      } catch {
        throw new ToolError('validation', 'hub_url must be a URL such as http://127.0.0.1:9188');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ToolError('validation', 'hub_url must be an http:// or https:// URL');
      hubUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    }
    const plan = planConnect(
      input.client,
      {
        repo: config.repo,
        stateDir: config.stateDir,
        hubUrl,
        token: config.token !== undefined,
        nodePath: process.execPath,
      },
      input.remove ? 'remove' : 'add',
    );
    const port = new URL(hubUrl).port;
    const command = `cos connect ${input.client}${input.remove ? ' --remove' : ''}${port && port !== String(config.port) ? ` --url ${hubUrl}` : ''}`;
    return {
      client: input.client,
      command,
      files: plan.files.map((f) => ({
        path: f.path,
        exists: f.before !== null,
        after: f.after,
        diff: diffText(f),
      })),
      notes: plan.notes,
    };
  },
});
