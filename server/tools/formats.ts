// TypeBox fails every value of a string format it does not know. The string formats tool schemas may
// use are registered here, once, by the registry's validator (run.ts) and by the schemas that check
// values themselves.
import { FormatRegistry } from '@sinclair/typebox';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v));
