// The key types certhub orders certificates for (src/crypto/key-types.ts, shared with certhub-agent's
// --own-key), under the cert role's name for its own modules and pages.
export { keyShape, keyTypes, type KeyType } from '../../src/crypto/key-types.js';
