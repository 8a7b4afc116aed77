import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryService } from '../../../server/memory/service.ts';
import { memoryTools } from '../../../server/tools/memory/index.ts';
import { makeTestHub } from './test-context.ts';

test('quick', async () => {
  const hub = makeTestHub(({ db }) => ({ memory: createMemoryService({ db }) }));
  const rec = memoryTools.find((t) => t.name === 'cos_observation_record')!;
  const search = memoryTools.find((t) => t.name === 'cos_search')!;
  console.log(await hub.call(rec, { title: 'Connection pool exhausted under load', narrative: 'Raise pool size', type: 'pitfall' }));
  await hub.call(rec, { title: '数据库连接池的配置方法', type: 'fact' });
  await hub.call(rec, { title: 'الاتصال بقاعدة البيانات', type: 'fact' });
  await hub.call(rec, { title: 'Подключение к базе данных', type: 'fact' });
  for (const q of ['pool', 'connection pooling', '连接池', '数据', 'قاعدة', 'базе', 'NEAR("pool" *)', 'pool:size -x', 'exhaust']) {
    console.log(q, JSON.stringify(await hub.call(search, { query: q })));
  }
  await assert.rejects(hub.call(search, { query: '*** - ()' }), /no searchable/);
  hub.cleanup();
});
