import type { Extraction } from '../types.ts';
import { docFileUid } from '../uid.ts';
import { Builder } from './common.ts';
export function extractMarkdown(path: string, text: string): Extraction {
  return new Builder(path, text, { uid: docFileUid(path), kind: 'doc_file' }).result();
}
