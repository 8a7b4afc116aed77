import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { HookSettingsPatchSchema, HookSettingsSchema } from '../../hooks/settings.ts';
import { defineTool } from '../define.ts';

const SettingsOutput = Type.Object({
  settings: HookSettingsSchema,
  load_error: Type.Union([Type.String(), Type.Null()], {
    description: 'why hooks.json was ignored, if it was',
  }),
});

export const hookSettingsTool = defineTool({
  name: 'cos_hook_settings',
  title: 'Hook settings',
  description:
    'The project’s hook settings ($COS_STATE_DIR/hooks.json): edit conflicts off, warn or block; whether prompt text is kept; agent timeout and claim grace.',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: Type.Object({}, { additionalProperties: false }),
  output: SettingsOutput,
  annotations: { readOnlyHint: true },
  http: { method: 'GET', path: '/api/settings/hooks' },
  handler: (ctx) => {
    const { settings } = ctx.services.agents;
    return { settings: settings.get(), load_error: settings.loadError ?? null };
  },
});

export const hookSettingsSetTool = defineTool({
  name: 'cos_hook_settings_set',
  title: 'Change hook settings',
  description:
    'Changes the project’s hook settings (omitted fields stay); kept in $COS_STATE_DIR/hooks.json.',
  module: 'observability',
  layer: 'metrics',
  mcp: false,
  input: HookSettingsPatchSchema,
  output: SettingsOutput,
  annotations: { readOnlyHint: false, idempotentHint: true },
  http: { method: 'PATCH', path: '/api/settings/hooks' },
  handler: (ctx, input) => {
    const { settings } = ctx.services.agents;
    if (Object.keys(input).length === 0)
      throw new ToolError('validation', 'name at least one setting to change');
    return { settings: settings.update(input), load_error: null };
  },
});
