import type { Config } from '../config.ts';
import { CONFIG_FLAGS_HELP } from './help.ts';
import { findRunningHub } from './running-hub.ts';

export const LOGIN_HELP = `usage: cos login

Asks the running hub for a one-time link that signs a browser in (only when the hub has a token:
COS_HUB_TOKEN, the same one it was started with). The link works once, within ten minutes.

${CONFIG_FLAGS_HELP}`;

/** Where a CLI command reaches the hub this configuration serves (a wildcard bind answers on loopback). */
export function hubBase(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * `cos login`: asks the running hub for a one-time link that signs a browser in (the hub has a token, so
 * the SPA needs a login cookie). Uses COS_HUB_TOKEN from the environment, as the hub does.
 */
export async function loginCommand(config: Config): Promise<number> {
  if (config.token === undefined) {
    console.log(`this hub has no token; open ${hubBase(config)}/ directly`);
    return 0;
  }
  // The hub that serves this state directory, wherever it listens; else where the configuration says.
  const base = (await findRunningHub(config))?.url ?? hubBase(config);
  let res: Response;
  try {
    res = await fetch(`${base}/api/login-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.token}` },
    });
  } catch {
    console.error(`cos login: no hub answers at ${base}; start it with \`cos serve\` (it prints a link too)`);
    return 1;
  }
  if (res.status === 401) {
    console.error('cos login: the hub refused COS_HUB_TOKEN; set the token the hub was started with');
    return 1;
  }
  if (!res.ok) {
    console.error(`cos login: the hub answered ${res.status}`);
    return 1;
  }
  const { data } = (await res.json()) as { data: { path: string; expires_at: string } };
  console.log(`Open this link once, within ten minutes, to sign this browser in:\n  ${base}${data.path}`);
  return 0;
}
