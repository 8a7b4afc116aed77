import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../server/events/bus.ts';

test('since() returns exactly the events after an id, across the ring wrapping round', () => {
  const bus = new EventBus(5);
  for (let i = 0; i < 12; i++) bus.publish('module-changed', { i });
  // Ids 8..12 are buffered.
  assert.deepEqual(
    bus.since(9)?.map((e) => e.id),
    [10, 11, 12],
  );
  assert.deepEqual(
    bus.since(7)?.map((e) => e.id),
    [8, 9, 10, 11, 12],
  );
  assert.equal(bus.since(6), null, 'id 7 has left the buffer: resync');
  assert.deepEqual(bus.since(12), []);
  assert.deepEqual(
    bus.recent(2).map((e) => e.id),
    [11, 12],
  );
  assert.deepEqual(
    bus.recent(50).map((e) => e.id),
    [8, 9, 10, 11, 12],
  );
});

test('nothing missed from the start; an id the bus never issued (a hub restart) means resync', () => {
  const bus = new EventBus(3);
  assert.deepEqual(bus.since(0), []);
  assert.equal(bus.since(5), null);
  assert.deepEqual(bus.recent(10), []);
  bus.publish('log-warning', {});
  assert.equal(bus.since(2), null);
  assert.deepEqual(
    bus.since(0)?.map((e) => e.id),
    [1],
  );
});

test('a throwing subscriber does not stop the others', () => {
  const bus = new EventBus();
  const seen: number[] = [];
  bus.subscribe(() => {
    throw new Error('boom');
  });
  bus.subscribe((e) => seen.push(e.id));
  bus.publish('log-warning', {});
  assert.deepEqual(seen, [1]);
});
