import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import {
  API_TYPES_PATH,
  apiTypesText,
  buildOpenApiDocument,
  OPENAPI_SNAPSHOT_PATH,
  snapshotText,
} from '../../../scripts/lib/openapi.ts';
import { README_PATH, readmeWithToolsTable } from '../../../scripts/lib/tools-table.ts';

const doc = await buildOpenApiDocument();

test('the OpenAPI document is valid OpenAPI 3.1', async () => {
  assert.equal(doc.openapi, '3.1.0');
  await SwaggerParser.validate(structuredClone(doc) as never);
});

test('ErrorBody, ErrorEnvelope and Meta are named components', () => {
  const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
  for (const name of ['ErrorBody', 'ErrorEnvelope', 'Meta'])
    assert.ok(schemas[name], `components.schemas.${name}`);
});

// Routes whose 200 body is another program's format by contract, not our envelope (their errors still are).
const NOT_AN_ENVELOPE = new Map([
  ['hooksIngest', "a coding agent's hook reads the answer as its own hook output JSON (a decision)"],
]);

test('every operation has an operationId, tags, a { data, meta } 200 and the error responses', () => {
  const paths = doc.paths as Record<
    string,
    Record<string, { operationId?: string; tags?: string[]; responses: Record<string, unknown> }>
  >;
  const ids = new Set<string>();
  let count = 0;
  for (const [path, ops] of Object.entries(paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(ops)) {
      count++;
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(op.operationId, `${where} has an operationId`);
      assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`);
      ids.add(op.operationId);
      assert.ok(op.tags?.length, `${where} has tags`);
      const ok = JSON.stringify(op.responses['200']);
      if (!ok.includes('text/event-stream') && !NOT_AN_ENVELOPE.has(op.operationId)) {
        assert.match(ok, /"data"/, `${where} 200 has data`);
        assert.match(ok, /#\/components\/schemas\/Meta/, `${where} 200 has meta`);
      }
      for (const status of ['400', '401', '403', '404', '500', '503']) {
        assert.match(JSON.stringify(op.responses[status]), /ErrorEnvelope/, `${where} declares ${status}`);
      }
    }
  }
  assert.ok(count >= 3);
});

test('the README table of tools is current (run `npm run gen-api` if this fails)', () => {
  assert.equal(readFileSync(README_PATH, 'utf8'), readmeWithToolsTable());
});

test('web/src/lib/api-types.ts and web/openapi.json are current (run `npm run gen-api` if this fails)', async () => {
  assert.equal(
    readFileSync(OPENAPI_SNAPSHOT_PATH, 'utf8'),
    snapshotText(doc),
    'the OpenAPI snapshot drifted',
  );
  assert.equal(
    readFileSync(API_TYPES_PATH, 'utf8'),
    await apiTypesText(doc),
    'the generated API types drifted',
  );
});
