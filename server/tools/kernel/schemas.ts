import { Type } from '@sinclair/typebox';
import { MODULE_IDS } from '../define.ts';

export const ModuleIdSchema = Type.Union(
  MODULE_IDS.map((id) => Type.Literal(id)),
  {},
);

export const ModuleInfoSchema = Type.Object(
  {
    id: ModuleIdSchema,
    enabled: Type.Boolean(),
    description: Type.String(),
  },
  { $id: 'ModuleInfo' },
);
