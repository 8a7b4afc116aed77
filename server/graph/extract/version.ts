// What the extractors produce for a file's text, as a number: bump it when a change to an extractor or
// to the shape of its facts would give an unchanged file other nodes or references. A full pass over a
// graph written at another version re-extracts every file once (as `force` does), so a hub upgraded in
// place does not keep the old reading of the files that did not change.
//
// 2: TypeScript/JavaScript callers as people read them (issue 22): nested functions, interface methods,
//    the `local` binding of a reference.
// 3: declaration files and bundles that failed to parse now do (a global augmentation inside a module,
//    escapes in template types, `export import = require`, `using` as a value, …).
// 4: object-literal methods are nodes (`api.get`); receiver chains followed through declared types
//    (`this.a.b()`, `getStore().get()`): fields' and functions' declared types in the facts (issue 31).
// 5: the API surface (issue 31): route, mcp_tool, cli_command and event_handler nodes with `handles`
//    references to their handlers, `metadata.entry` / `entry_files` on entry points, and the mounts
//    routes are served under (`app.use('/api', r)`, Fastify's `register(plugin, { prefix })`).
export const EXTRACTION_VERSION = 5;
