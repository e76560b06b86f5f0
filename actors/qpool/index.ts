// The qpool roles, send (collect) and recv (serve): what the rest of outpost may use of them.
export { sendRole } from './send.js';
export { recvRole } from './recv.js';
