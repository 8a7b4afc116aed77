import type { Config } from '../config.ts';
import { isModuleId, type ModuleInfo, ModuleState } from '../modules.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';
import { hubRequest, unwrap } from './hub-client.ts';
import { findRunningHub, type RunningHub, tokenRefused } from './running-hub.ts';

export const MODULE_HELP = `usage: cos module list | enable <id> | disable <id>

Lists the modules, or turns one on or off for this repository (kept in subsystems-state.json). While a
hub serves the state directory, the change is made by that hub: its MCP clients get
notifications/tools/list_changed at once, no restart needed.

${CONFIG_FLAGS_HELP}`;

const USAGE_LINE = 'usage: cos module list | enable <id> | disable <id>';

function printList(modules: ModuleInfo[]): void {
  for (const m of modules) console.log(`${m.enabled ? 'on ' : 'off'}  ${m.id.padEnd(14)} ${m.description}`);
}

/** `cos module list | enable <id> | disable <id>`, through the running hub when there is one. */
export async function moduleCommand(config: Config, args: string[]): Promise<number> {
  const [action = 'list', id] = args;
  if (action !== 'list' && action !== 'enable' && action !== 'disable') {
    console.error(USAGE_LINE);
    return 2;
  }
  if (action !== 'list') {
    if (id === undefined) {
      console.error(USAGE_LINE);
      return 2;
    }
    if (!isModuleId(id)) {
      console.error(
        `unknown module "${id}"; modules: ${ModuleState.forStateDir(config.stateDir)
          .list()
          .map((m) => m.id)
          .join(', ')}`,
      );
      return 2;
    }
    if (id === 'kernel' && action === 'disable') {
      console.error('the kernel module cannot be disabled');
      return 2;
    }
  }
  const hub = await findRunningHub(config);
  if (hub) return viaHub(hub, config, action, id);

  const modules = ModuleState.forStateDir(config.stateDir);
  if (modules.loadError) console.error(`warning: ${modules.loadError}`);
  if (action === 'list' || id === undefined || !isModuleId(id)) {
    printList(modules.list());
    return 0;
  }
  const changed = modules.set(id, action === 'enable');
  console.log(`${id} ${action === 'enable' ? 'enabled' : 'disabled'}${changed ? '' : ' (already)'}`);
  return 0;
}

async function viaHub(
  hub: RunningHub,
  config: Config,
  action: 'list' | 'enable' | 'disable',
  id: string | undefined,
): Promise<number> {
  if (!hub.authorised) {
    console.error(`cos module: ${tokenRefused(hub)}`);
    return 1;
  }
  const target = { url: hub.url, token: config.token };
  try {
    if (action === 'list' || id === undefined) {
      const data = unwrap<{ modules: ModuleInfo[]; problem?: string }>(
        await hubRequest(target, 'GET', '/api/settings/modules'),
        'cos module list',
      );
      if (data.problem) console.error(`warning: ${data.problem}`);
      printList(data.modules);
      return 0;
    }
    const data = unwrap<{ changed: boolean }>(
      await hubRequest(target, 'PATCH', `/api/settings/modules/${encodeURIComponent(id)}`, {
        enabled: action === 'enable',
      }),
      `cos module ${action}`,
    );
    console.log(
      `${id} ${action === 'enable' ? 'enabled' : 'disabled'}${data.changed ? '' : ' (already)'} in the hub at ${hub.url}/`,
    );
    return 0;
  } catch (err) {
    console.error(`cos module: ${(err as Error).message}`);
    return 1;
  }
}
