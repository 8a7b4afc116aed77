// The MCP tool profiles for the Settings page: each one's URL path, what it is for, and the tools it
// lists now (enabled modules only). REST-only: an agent picks its profile by the URL it connects to.
import { Type } from '@sinclair/typebox';
import { defineTool } from '../define.ts';
import { DEFAULT_PROFILE, PROFILE_NAMES, PROFILES, profileUrl } from '../profiles.ts';

export const mcpProfilesTool = defineTool({
  name: 'cos_mcp_profiles',
  title: 'MCP tool profiles',
  description:
    'The tool profiles an MCP client can connect to (/mcp?tools=…): what each is for and the tools it lists now.',
  module: 'kernel',
  layer: 'health',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({
    profiles: Type.Array(
      Type.Object({
        name: Type.Union(PROFILE_NAMES.map((name) => Type.Literal(name))),
        summary: Type.String(),
        path: Type.String({ description: 'the MCP URL path: /mcp, or /mcp?tools=<name>' }),
        default: Type.Boolean(),
        tools: Type.Array(Type.String(), { description: 'tools it lists now (modules that are off aside)' }),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/api/settings/mcp-profiles', tag: 'settings' },
  mcp: false,
  handler: async (ctx) => {
    // Imported when called: the catalog imports this file.
    const { catalog } = await import('../catalog.ts');
    const listed = catalog.filter((tool) => tool.mcp !== false && ctx.modules.isEnabled(tool.module));
    return {
      // The default first, then the smaller surfaces.
      profiles: [DEFAULT_PROFILE, ...PROFILE_NAMES.filter((name) => name !== DEFAULT_PROFILE)].map(
        (name) => ({
          name,
          summary: PROFILES[name].summary,
          path: profileUrl('/mcp', name),
          default: name === DEFAULT_PROFILE,
          tools: listed.filter((tool) => PROFILES[name].has(tool)).map((tool) => tool.name),
        }),
      ),
    };
  },
});
