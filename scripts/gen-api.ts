// npm run gen-api: writes web/src/lib/api-types.ts (openapi-typescript), the OpenAPI snapshot
// web/openapi.json and the README's table of tools. Reads the running hub at http://127.0.0.1:9188/openapi.json when one answers and
// --in-process is not given; otherwise builds the app in-process.
import { writeFileSync } from 'node:fs';
import {
  API_TYPES_PATH,
  apiTypesText,
  buildOpenApiDocument,
  OPENAPI_SNAPSHOT_PATH,
  snapshotText,
} from './lib/openapi.ts';
import { README_PATH, readmeWithToolsTable } from './lib/tools-table.ts';

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
writeFileSync(README_PATH, readmeWithToolsTable());
console.log(
  `wrote ${API_TYPES_PATH} and ${OPENAPI_SNAPSHOT_PATH} from ${running ? 'the running hub' : 'an in-process build'}`,
);
