// The speedtest role (netspeed): what the rest of outpost may use of it.
export { speedtestRole } from './role.js';
