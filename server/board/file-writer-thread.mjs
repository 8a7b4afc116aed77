// The thread that writes and fsyncs the board's temp files, and fsyncs their directory once they are
// renamed into place (see file-writer.ts). Plain JavaScript on
// purpose: it needs nothing but node:fs, and loading TypeScript through tsx would cost a thread more to
// start than everything it does. A job is written and fsynced (on libuv's threadpool, so several at a
// time), then its slot in the shared array says so; the message that follows wakes the main thread when
// it is idle, while a busy one reads the slot at the end of its turn without waiting for the message.
import { closeSync, fsync, fsyncSync, linkSync, openSync, rmSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { DONE, FAILED, dir } = workerData;
const slots = new Int32Array(workerData.slots);
/** [0] the last directory fsync the main thread asked for, [1] the last one done. */
const dirSync = new Int32Array(workerData.dirSync);

/** One fsync of the directory answers every request made before it started. */
function syncDirectory() {
  const upTo = Atomics.load(dirSync, 0);
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse to open or fsync a directory: best effort, as the rename is still atomic.
  }
  Atomics.store(dirSync, 1, upTo);
  Atomics.notify(dirSync, 1);
  parentPort.postMessage({ dirDone: upTo });
}

function settle(id, slot, err) {
  if (slot >= 0) Atomics.store(slots, slot, err ? FAILED : DONE);
  parentPort.postMessage(
    err ? { id, error: { message: err.message, code: err.code, syscall: err.syscall } } : { id },
  );
}

parentPort.on('message', ({ dir: gen, id, slot, tmp, text, path, hold }) => {
  if (gen !== undefined) {
    // Requests that queued behind one fsync were answered by it.
    if (((Atomics.load(dirSync, 1) - gen) | 0) < 0) syncDirectory();
    return;
  }
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
