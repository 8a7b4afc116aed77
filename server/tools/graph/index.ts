// The query tools of issue 6, and the indexer's own reindex tool beside them.
import type { AnyTool } from '../define.ts';
import { graphApiSurfaceTool } from './api-surface.ts';
import { graphCommunitiesTool } from './communities.ts';
import { graphContextTool } from './context.ts';
import { graphCyclesTool } from './cycles.ts';
import { graphDeadCodeTool } from './dead-code.ts';
import { graphDetectChangesTool } from './detect-changes.ts';
import { graphDoctorTool } from './doctor.ts';
import { graphEntrypointsTool } from './entrypoints.ts';
import { graphExportTool } from './export.ts';
import { graphImpactTool } from './impact.ts';
import { graphOverviewTool } from './overview.ts';
import { graphPathTool } from './path.ts';
import { graphRankingTool } from './ranking.ts';
import { graphReferencesTool } from './references.ts';
import { graphReindexTool } from './reindex.ts';
import { graphRenamePlanTool } from './rename-plan.ts';
import { graphResolveTool } from './resolve.ts';
import { graphSearchTool } from './search.ts';
import { graphSimilarTool } from './similar.ts';
import { graphStatsTool } from './stats.ts';
import { graphTraceTool } from './trace.ts';

export const graphTools: AnyTool[] = [
  graphSearchTool,
  graphResolveTool,
  graphContextTool,
  graphReferencesTool,
  graphImpactTool,
  graphPathTool,
  graphTraceTool,
  graphSimilarTool,
  graphRenamePlanTool,
  graphDetectChangesTool,
  graphExportTool,
  graphCyclesTool,
  graphDeadCodeTool,
  graphApiSurfaceTool,
  graphEntrypointsTool,
  graphStatsTool,
  graphOverviewTool,
  graphCommunitiesTool,
  graphRankingTool,
  graphDoctorTool,
  graphReindexTool,
];
