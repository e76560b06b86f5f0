// ARI (RFC 9773) from the CA: its directory names a `renewalInfo` resource when it offers ARI; the
// answer for a certificate is an unauthenticated GET of `<renewalInfo>/<CertID>`. Both go through
// the account's connection, so the CA bundle (e.g. Pebble's) is trusted as for orders.
import acme from 'acme-client';
import { parseRenewalInfo, renewalInfoUrl } from '../renewal/ari.js';
import type { AcmeAccount } from './account.js';
import type { RenewalInfoAnswer } from './protocol.js';

/** The CA's renewal information for `certId`; null when the directory offers none. */
export function fetchRenewalInfo(account: AcmeAccount, certId: string, now: number): Promise<RenewalInfoAnswer | null> {
  return account.connection.run(async () => {
    const directory = await acme.axios.get<unknown>(account.directoryUrl);
    const renewalInfo = (directory.data as { renewalInfo?: unknown } | null)?.renewalInfo;
    if (typeof renewalInfo !== 'string') return null;
    const answer = await acme.axios.get<unknown>(renewalInfoUrl(renewalInfo, certId), { validateStatus: () => true });
    const retryAfter: unknown = answer.headers['retry-after'];
    const parsed = parseRenewalInfo(answer.data, typeof retryAfter === 'string' ? retryAfter : undefined, now);
    return answer.status === 200 ? parsed : { ok: false, reason: `renewalInfo answered ${answer.status}`, nextCheckAt: parsed.nextCheckAt };
  });
}
