// The monitor role (hostwatch): what the rest of outpost may use of it.
export { monitorRole } from './role.js';
