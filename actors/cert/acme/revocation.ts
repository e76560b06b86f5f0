// Revoking a certificate at the CA (RFC 8555 §7.6), signed with the account key, with a reason from
// RFC 5280 §5.3.1 by name (revocation-reasons.ts).
import { messageOf, type AcmeAccount } from './account.js';
import { AcmeOrderError } from './errors.js';
import { revocationReasons, type RevocationReason } from './revocation-reasons.js';

/** Asks the CA to revoke `certPem`; resolves with what the CA answered, in words; throws ERR_ACME_ORDER with its refusal. */
export async function revokeAtCa(account: AcmeAccount, certPem: string, reason: RevocationReason): Promise<string> {
  return account.connection.run(async (state) => {
    try {
      await account.client.revokeCertificate(certPem, { reason: revocationReasons[reason] });
    } catch (error) {
      throw new AcmeOrderError(`acme: the CA refused the revocation: ${messageOf(error)}`, state.retryAfterSeconds, state.problemType);
    }
    return `the CA at ${account.directoryUrl} revoked the certificate (reason ${reason}, code ${revocationReasons[reason]})`;
  });
}
