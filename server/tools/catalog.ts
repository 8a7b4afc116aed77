// Every tool the product serves, one import per layer. Tools written only to exercise the registry live
// under test/, not here.
import { agentTools } from './agents/index.ts';
import { boardTools } from './board/index.ts';
import { costTools } from './costs/index.ts';
import type { AnyTool } from './define.ts';
import { docsTools } from './docs/index.ts';
import { fileTools } from './files/index.ts';
import { graphTools } from './graph/index.ts';
import { kernelTools } from './kernel/index.ts';
import { memoryTools } from './memory/index.ts';
import { messageTools } from './messages/index.ts';
import { observabilityTools } from './observability/index.ts';
import { searchAllTool } from './search/search-all.ts';
import { superviseTools } from './supervise/index.ts';

export const catalog: readonly AnyTool[] = [
  ...kernelTools,
  ...observabilityTools,
  ...costTools,
  ...agentTools,
  ...messageTools,
  ...boardTools,
  ...fileTools,
  ...memoryTools,
  ...docsTools,
  ...superviseTools,
  ...graphTools,
  searchAllTool,
];
