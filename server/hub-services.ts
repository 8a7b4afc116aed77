// What tools reach through ctx.services: one field per domain service, each added by declaration
// merging from the service's own file, so no central file has to know every module and no domain
// imports from the tools layer above it:
//   declare module '../hub-services.ts' { interface HubServices { board: BoardService } }
// server/services.ts builds them; server/tools/context.ts hands them to every tool.

// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module
export interface HubServices {}
