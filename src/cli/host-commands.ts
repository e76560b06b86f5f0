import type { HostConfig } from '../config/host.js';
import type { DemoStarted, Endpoint, LivePublication, RoleList } from '../config/role.js';

/** The host config `outpost demo` runs: every role with its loopback demo settings, made now where a role makes them. */
export async function demoHostConfig(known: RoleList): Promise<{ roles: Record<string, unknown> }> {
  const roles = await Promise.all(known.map(async (role) => [role.name, (await role.demo?.prepare?.()) ?? role.demoConfig] as const));
  return { roles: Object.fromEntries(roles) };
}

/** Each role's demo `started` hook, by role name; a role without one shows its URL alone. */
export async function startedDemo(
  known: RoleList,
  config: HostConfig,
  endpoints: readonly Endpoint[],
  publish: (publication: LivePublication) => void,
): Promise<Map<string, DemoStarted>> {
  const shown = new Map<string, DemoStarted>();
  await Promise.all(
    known.map(async (role) => {
      const settings = config.roles[role.name];
      if (settings === undefined || role.demo?.started === undefined) return;
      shown.set(role.name, await role.demo.started(settings, endpoints, publish));
    }),
  );
  return shown;
}

/** `outpost roles`: a line a role, its name and what it is. */
export function describeRoles(known: RoleList): string {
  return known.map((role) => `${role.name.padEnd(10)} ${role.summary}\n`).join('');
}

/**
 * `role  url` lines, roles in `order` (a host config's own order), a role's URLs in the order they
 * came; `demo` replaces a role's URL and adds its notes under it, indented.
 */
export function printEndpoints(endpoints: readonly Endpoint[], order: readonly string[], demo: ReadonlyMap<string, DemoStarted> = new Map()): void {
  const width = Math.max(...endpoints.map(({ role }) => role.length)) + 2;
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const sorted = [...endpoints].sort((a, b) => rank(a.role) - rank(b.role));
  const lines: string[] = [];
  for (const { role, url } of sorted) {
    const shown = demo.get(role);
    lines.push(`${role.padEnd(width)}${shown?.url ?? url}`, ...(shown?.notes ?? []).map((note) => `${' '.repeat(width)}${note}`));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
