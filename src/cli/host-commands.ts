import type { RoleList } from '../config/role.js';

/** The host config `outpost demo` runs: every role with its loopback demo settings. */
export function demoHostConfig(known: RoleList): { roles: Record<string, unknown> } {
  return { roles: Object.fromEntries(known.map((role) => [role.name, role.demoConfig])) };
}

/** `outpost roles`: a line a role, its name and what it is. */
export function describeRoles(known: RoleList): string {
  return known.map((role) => `${role.name.padEnd(10)} ${role.summary}\n`).join('');
}

/** `role  url` lines, roles in `order` (a host config's own order), a role's URLs in the order they came. */
export function printEndpoints(endpoints: readonly { role: string; url: string }[], order: readonly string[]): void {
  const width = Math.max(...endpoints.map(({ role }) => role.length)) + 2;
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const sorted = [...endpoints].sort((a, b) => rank(a.role) - rank(b.role));
  for (const { role, url } of sorted) process.stdout.write(`${role.padEnd(width)}${url}\n`);
}
