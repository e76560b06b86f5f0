// The module the key job (jobs.ts) runs in a thread of the shared pool: certhub's keys are made by
// the generation certhub-agent --own-key uses too (src/crypto/private-key.ts).
export { newPrivateKeyPem as generatePrivateKeyPem, type PrivateKeyInput } from '../../src/crypto/private-key.js';
