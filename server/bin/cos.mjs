#!/usr/bin/env node
// The `cos` command: registers tsx so the hub runs from its TypeScript sources, then hands over to main.ts.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
