// The proxy role (certhub-agent): what the rest of outpost may use of it.
export { proxyRole } from './role.js';
