// Messages between the hub's main thread (service.ts) and the indexer worker (worker.ts).
import type { MessagePort } from 'node:worker_threads';
import type { FileIdentity } from '../db/open.ts';
import type { IndexProgress, IndexResult } from './indexer.ts';
import type { WalkOptions } from './walk.ts';

export interface WorkerData {
  dbPath: string;
  /** The file the hub opened at dbPath: the worker refuses another one found there. */
  dbIdentity?: FileIdentity | undefined;
  repo: string;
  walk?: WalkOptions;
  /** A port to each of the process's extraction helpers (helpers.ts); none: the indexer extracts itself. */
  helperPorts: MessagePort[];
}

export type ToWorker =
  | { type: 'index'; id: number; force?: boolean; reload?: boolean; paths?: string[] }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; ids: number[]; progress: IndexProgress }
  | { type: 'done'; ids: number[]; result: IndexResult }
  | { type: 'failed'; ids: number[]; message: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> };
