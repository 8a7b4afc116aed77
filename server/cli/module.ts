import type { Config } from '../config.ts';
import { isModuleId, ModuleState } from '../modules.ts';

/** `cos module list | enable <id> | disable <id>`: edits subsystems-state.json; a running hub picks it up on restart or through the Settings page. */
export function moduleCommand(config: Config, args: string[]): number {
  const [action = 'list', id] = args;
  const modules = ModuleState.forStateDir(config.stateDir);
  if (modules.loadError) console.error(`warning: ${modules.loadError}`);
  if (action === 'list') {
    for (const m of modules.list())
      console.log(`${m.enabled ? 'on ' : 'off'}  ${m.id.padEnd(14)} ${m.description}`);
    return 0;
  }
  if ((action !== 'enable' && action !== 'disable') || id === undefined) {
    console.error('usage: cos module list | enable <id> | disable <id>');
    return 2;
  }
  if (!isModuleId(id)) {
    console.error(
      `unknown module "${id}"; modules: ${modules
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
  const changed = modules.set(id, action === 'enable');
  console.log(`${id} ${action === 'enable' ? 'enabled' : 'disabled'}${changed ? '' : ' (already)'}`);
  return 0;
}
