import type { Extraction } from '../types.ts';
import { Builder } from './common.ts';
export function extractManifest(path: string, text: string): Extraction {
  return new Builder(path, text).result();
}
