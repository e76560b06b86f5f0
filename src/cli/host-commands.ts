import { implementedRoles, plannedRoles } from '../../actors/registry.js';
import { roleNames } from '../config/role.js';

/** The host config `outpost demo` runs: every implemented role with its loopback demo settings. */
export function demoHostConfig(): { roles: Record<string, unknown> } | undefined {
  const roles: Record<string, unknown> = {};
  for (const name of roleNames) {
    const role = implementedRoles[name];
    if (role !== undefined) roles[name] = role.demoConfig;
  }
  return Object.keys(roles).length === 0 ? undefined : { roles };
}

export function describeRoles(): string {
  return roleNames
    .map((name) => `${name.padEnd(10)} ${implementedRoles[name] === undefined ? 'planned    ' : 'implemented'} ${plannedRoles[name].summary}\n`)
    .join('');
}

/** `role  url` lines, roles in `order` (a host config's own order), a role's URLs in the order they came. */
export function printEndpoints(endpoints: readonly { role: string; url: string }[], order: readonly string[]): void {
  const width = Math.max(...endpoints.map(({ role }) => role.length)) + 2;
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const sorted = [...endpoints].sort((a, b) => rank(a.role) - rank(b.role));
  for (const { role, url } of sorted) process.stdout.write(`${role.padEnd(width)}${url}\n`);
}
