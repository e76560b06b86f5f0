// Every role outpost runs, in the order `outpost roles` lists them and a demo prints them. A new role
// is a folder under actors/ exporting its definition from its index.ts, and one line here.
import type { RoleList } from '../src/config/role.js';
import { certRole } from './cert/index.js';
import { monitorRole } from './monitor/index.js';
import { proxyRole } from './proxy/index.js';
import { recvRole, sendRole } from './qpool/index.js';
import { speedtestRole } from './speedtest/index.js';

export const roles: RoleList = [certRole, proxyRole, speedtestRole, monitorRole, sendRole, recvRole];
