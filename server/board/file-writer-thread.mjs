// The thread that writes and fsyncs the board's temp files (see file-writer.ts). Plain JavaScript on
// purpose: it needs nothing but node:fs, and loading TypeScript through tsx would cost a thread more to
// start than everything it does. A job is written and fsynced (on libuv's threadpool, so several at a
// time), then its slot in the shared array says so; the message that follows wakes the main thread when
// it is idle, while a busy one reads the slot at the end of its turn without waiting for the message.
import { closeSync, fsync, linkSync, openSync, rmSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { DONE, FAILED } = workerData;
const slots = new Int32Array(workerData.slots);

function settle(id, slot, err) {
  if (slot >= 0) Atomics.store(slots, slot, err ? FAILED : DONE);
  parentPort.postMessage(
    err ? { id, error: { message: err.message, code: err.code, syscall: err.syscall } } : { id },
  );
}

parentPort.on('message', ({ id, slot, tmp, text, path, hold }) => {
  let fd;
  try {
    fd = openSync(tmp, 'wx', 0o644);
    writeSync(fd, text);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    settle(id, slot, err);
    return;
  }
  if (hold !== null) {
    try {
      linkSync(path, hold);
    } catch {
      // Gone, or no hard links here: the rename frees the old inode itself, which is only slower.
    }
  }
  fsync(fd, (err) => {
    closeSync(fd);
    if (err) rmSync(tmp, { force: true });
    settle(id, slot, err);
  });
});
