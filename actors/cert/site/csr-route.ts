// The body of POST /api/cert/<domain>/csr: `{"csr": "<PEM>"}`, bounded; the CSR itself is checked by
// the domains actor (../domains/csr-check.ts), which knows the domain's names, so that the fronts load
// no X.509 code.
import { z } from 'zod';

/** A CSR is a few hundred bytes (an RSA-4096 one under 2 KB). */
export const maxCsrBytes = 16 * 1024;

export const csrBody = z.strictObject({ csr: z.string().min(1).max(maxCsrBytes) });

/** The CSR and its JSON wrapping. */
export const maxCsrBodyBytes = maxCsrBytes + 1024;
