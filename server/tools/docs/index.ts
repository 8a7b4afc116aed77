// The docs layer's tools, in the order tools/list shows them.
import type { AnyTool } from '../define.ts';
import { docHeaderTool } from './doc-header.ts';
import { docHeadersByTool } from './doc-headers-by.ts';
import { docSearchTool } from './doc-search.ts';

export const docsTools: AnyTool[] = [docSearchTool, docHeaderTool, docHeadersByTool];
