// The error codes of qpool (src/errors.ts), with the HTTP status a front answers for each; listed in
// the recv role's definition (the pool's files are sealed) for the docs' error table.
import { declareErrors } from '../../src/errors.js';

export const qpoolErrorTable = {
  ERR_SEALED_FILE: { status: 500, summary: 'an encrypted file cannot be opened: wrong key, or the file is damaged' },
} as const;

export const qpoolErrors = declareErrors(qpoolErrorTable);
