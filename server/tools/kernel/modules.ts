import { Type } from '@sinclair/typebox';
import { ToolError } from '../../errors.ts';
import { defineTool } from '../define.ts';
import { ModuleIdSchema, ModuleInfoSchema } from './schemas.ts';

export const moduleListTool = defineTool({
  name: 'cos_module_list',
  title: 'List modules',
  description: "The hub's modules and whether each is on in this project.",
  module: 'kernel',
  layer: 'health',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ modules: Type.Array(ModuleInfoSchema), problem: Type.Optional(Type.String()) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/settings/modules', tag: 'settings' },
  handler: (ctx) => ({
    modules: ctx.modules.list(),
    ...(ctx.modules.loadError ? { problem: ctx.modules.loadError } : {}),
  }),
});

export const moduleSetTool = defineTool({
  name: 'cos_module_set',
  title: 'Enable or disable a module',
  description:
    "Turns a module on or off for this project; an off module's tools leave tools/list and answer module_disabled.",
  module: 'kernel',
  layer: 'health',
  input: Type.Object(
    {
      id: ModuleIdSchema,
      enabled: Type.Boolean({}),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({ module: ModuleInfoSchema, changed: Type.Boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'PATCH', path: '/api/settings/modules/:id', tag: 'settings' },
  handler: (ctx, input) => {
    if (input.id === 'kernel' && !input.enabled) {
      throw new ToolError(
        'validation',
        'the kernel module cannot be disabled; it serves health and settings',
      );
    }
    const changed = ctx.modules.set(input.id, input.enabled);
    if (changed) ctx.events.publish('module-changed', { id: input.id, enabled: input.enabled });
    const module = ctx.modules.list().find((m) => m.id === input.id)!;
    return { module, changed };
  },
});
