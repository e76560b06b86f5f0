// Every role outpost knows, and which of them this build implements. A role lands by moving from
// `plannedRoles` to `implementedRoles` (one file per role beside this one).
import { certRole } from './cert/role.js';
import { monitorRole } from './monitor/role.js';
import type { PlannedRole, RoleDefinition, RoleName } from '../src/config/role.js';
import { proxyRole } from './proxy/role.js';
import { recvRole } from './qpool/recv.js';
import { sendRole } from './qpool/send.js';
import { speedtestRole } from './speedtest/role.js';

export const implementedRoles: Partial<Record<RoleName, RoleDefinition>> = {
  cert: certRole,
  proxy: proxyRole,
  monitor: monitorRole,
  speedtest: speedtestRole,
  send: sendRole,
  recv: recvRole,
};

export const plannedRoles: Record<RoleName, PlannedRole> = {
  cert: { name: 'cert', summary: 'certificate distribution server (certhub)' },
  proxy: { name: 'proxy', summary: 'TLS reverse proxy routing domains to backends (certhub-agent proxy)' },
  speedtest: { name: 'speedtest', summary: 'speed test server (netspeed)' },
  monitor: { name: 'monitor', summary: 'live machine dashboard (hostwatch)' },
  send: { name: 'send', summary: 'quantum random collector and diode sender (qpool collect)' },
  recv: { name: 'recv', summary: 'quantum random pool server (qpool serve)' },
};

export function roleDefinition(name: RoleName): RoleDefinition | undefined {
  return implementedRoles[name];
}
