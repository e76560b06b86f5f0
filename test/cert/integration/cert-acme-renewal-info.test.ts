// The acme actor's renewalInfo question on the real stack: Debian's Pebble (2.4) offers no
// `renewalInfo` in its directory, so the answer is null and certhub renews by the lifetime rule.
import test from 'ava';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { fetchRenewalInfo } from '../../../actors/cert/acme/renewal-info.js';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { withAcme } from '../helpers/acme.js';

test('a directory without renewalInfo gets no ARI question: the answer is null', withAcme, async (t, fixture) => {
  const issued = await issueCertificate({ name: `ari.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, fixture.issueContext());
  const certId = ariCertId(readCertificateFacts(issued.certPem));
  t.regex(certId, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  t.is(await fetchRenewalInfo(fixture.account, certId, Date.now()), null);
});
