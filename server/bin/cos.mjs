#!/usr/bin/env node
// The `cos` command from a clone (`npm start`, `npm run cos`, the tests): registers tsx so the hub runs
// from its TypeScript sources, then hands over to main.ts. The package's `cos` is dist/cos.js instead,
// built by scripts/build-server.mjs from the same sources.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
