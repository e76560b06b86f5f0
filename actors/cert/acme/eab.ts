// External account binding (RFC 8555 §7.3.4): a CA that registers only accounts it already knows of
// (ZeroSSL, Google Public CA, a company's own CA) hands out a key identifier and an HMAC key; the
// newAccount request carries a JWS over the account key, signed HS256 with that key (acme-client
// builds it from `externalAccountBinding`). The key is checked where it is read, so a key copied wrong
// fails `certhub check` and `certhub run` with its option path, not the first order with the CA's words.
import { z } from 'zod';

/** RFC 7518 §3.2: an HS256 key is at least as long as the hash, 256 bits. */
export const minimumHmacKeyBytes = 32;

const base64url = /^[A-Za-z0-9_-]+$/;

/** The problem with an HMAC key as the CA shows it (base64url, RFC 4648 §5), or undefined. */
export function hmacKeyProblem(key: string): string | undefined {
  const unpadded = key.replace(/={1,2}$/, '');
  if (!base64url.test(unpadded) || unpadded.length % 4 === 1) return 'must be the base64url text the CA gives (letters, digits, "-" and "_"), copied whole';
  const bytes = Buffer.from(unpadded, 'base64url').length;
  if (bytes < minimumHmacKeyBytes)
    return `decodes to ${bytes} bytes, and an HS256 key has at least ${minimumHmacKeyBytes} (RFC 7518 §3.2): is it copied whole?`;
  return undefined;
}

export const eabSchema = z
  .strictObject({
    kid: z.string().min(1).max(1024).describe('The key identifier the CA gave with the HMAC key (EAB KID).'),
    hmac_key: z
      .string()
      .superRefine((key, context) => {
        const problem = hmacKeyProblem(key);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      })
      .describe('The HMAC key the CA gave, base64url as the CA shows it (EAB HMAC key).'),
  })
  .describe(
    'External account binding (RFC 8555 §7.3.4): the key identifier and HMAC key of a CA that registers only accounts it knows of (ZeroSSL, Google Public CA). Sent when the account is registered.',
  );

export type EabConfig = z.output<typeof eabSchema>;

/** acme-client's form (`externalAccountBinding`); it decodes the key as base64, which reads base64url too. */
export function externalAccountBinding(eab: EabConfig | undefined): { kid: string; hmacKey: string } | undefined {
  return eab === undefined ? undefined : { kid: eab.kid, hmacKey: eab.hmac_key };
}
