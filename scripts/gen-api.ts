// npm run gen-api: writes web/src/lib/api-types.ts (openapi-typescript) and the OpenAPI snapshot
// web/openapi.json. Reads the running hub at http://127.0.0.1:9188/openapi.json when one answers and
// --in-process is not given; otherwise builds the app in-process.
import { writeFileSync } from 'node:fs';
import {
  API_TYPES_PATH,
  apiTypesText,
  buildOpenApiDocument,
  OPENAPI_SNAPSHOT_PATH,
  snapshotText,
} from './lib/openapi.ts';

async function fromRunningHub(): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch('http://127.0.0.1:9188/openapi.json', { signal: AbortSignal.timeout(1500) });
    if (!res.ok) return undefined;
    return (await res.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const inProcess = process.argv.includes('--in-process');
const running = inProcess ? undefined : await fromRunningHub();
const doc = running ?? (await buildOpenApiDocument());
writeFileSync(OPENAPI_SNAPSHOT_PATH, snapshotText(doc));
writeFileSync(API_TYPES_PATH, await apiTypesText(doc));
console.log(
  `wrote ${API_TYPES_PATH} and ${OPENAPI_SNAPSHOT_PATH} from ${running ? 'the running hub' : 'an in-process build'}`,
);
