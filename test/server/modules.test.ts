import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MODULES_FILE_NAME, ModuleState } from '../../server/modules.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'cos-modules-'));

test('a missing file means every module is enabled', () => {
  const m = ModuleState.forStateDir(fresh());
  assert.equal(m.loadError, undefined);
  assert.ok(m.list().every((x) => x.enabled));
});

test('disabling writes { version, disabled } and survives a reload', () => {
  const dir = fresh();
  const m = ModuleState.forStateDir(dir);
  assert.equal(m.set('graph', false), true);
  assert.equal(m.set('graph', false), false, 'no change the second time');
  assert.deepEqual(JSON.parse(readFileSync(join(dir, MODULES_FILE_NAME), 'utf8')), {
    version: 1,
    disabled: ['graph'],
  });
  assert.equal(ModuleState.forStateDir(dir).isEnabled('graph'), false);
});

test('a corrupt file is reported and means nothing is disabled', () => {
  const dir = fresh();
  writeFileSync(join(dir, MODULES_FILE_NAME), '{ not json');
  const m = ModuleState.forStateDir(dir);
  assert.match(m.loadError ?? '', /not valid/);
  assert.ok(m.list().every((x) => x.enabled));
});

test('an unknown module id in the file is reported', () => {
  const dir = fresh();
  writeFileSync(
    join(dir, MODULES_FILE_NAME),
    JSON.stringify({ version: 1, disabled: ['graph', 'warp-drive'] }),
  );
  const m = ModuleState.forStateDir(dir);
  assert.match(m.loadError ?? '', /warp-drive/);
  assert.equal(m.isEnabled('graph'), true);
});

test('the kernel cannot be disabled', () => {
  assert.throws(() => ModuleState.forStateDir(fresh()).set('kernel', false));
});

test('listeners hear each change once', () => {
  const m = ModuleState.forStateDir(fresh());
  const heard: string[] = [];
  m.onChange((id, enabled) => heard.push(`${id}:${enabled}`));
  m.set('docs', false);
  m.set('docs', false);
  m.set('docs', true);
  assert.deepEqual(heard, ['docs:false', 'docs:true']);
});
