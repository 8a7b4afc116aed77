// TypeBox's Value.Check fails every value of a string format it does not know, and the memory, docs and
// supervise schemas use date-time. Imported for its side effect by each of them. Registered only when
// absent, so a checker the registry installs first wins. (Ideally the tool registry owns this.)
import { FormatRegistry } from '@sinclair/typebox';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v));
