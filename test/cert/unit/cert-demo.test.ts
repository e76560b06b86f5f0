import { createPrivateKey, X509Certificate } from 'node:crypto';
import test from 'ava';
import { createDemoCertificate, demoIssuerName } from '../../../actors/cert/domains/demo-certificate.js';
import { normalizeMaterial } from '../../../actors/cert/domains/material.js';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';

const now = Date.parse('2025-06-01T12:00:00.500Z');

for (const [keyType, keyDetails] of [
  ['ecdsa-p256', { asymmetricKeyType: 'ec', namedCurve: 'prime256v1' }],
  ['rsa-2048', { asymmetricKeyType: 'rsa', modulusLength: 2048 }],
] as const) {
  test(`demo certificate, key type ${keyType}: self-signed, says so in its issuer, names the domain, fits its key`, async (t) => {
    const demo = await createDemoCertificate('app.example.com', { now, keyType });
    const certificate = new X509Certificate(demo.cert_pem);
    t.is(certificate.issuer, `CN=${demoIssuerName}\nO=certhub demo`);
    t.is(certificate.subject, certificate.issuer);
    t.true(certificate.verify(certificate.publicKey), 'signed by its own key');
    t.is(certificate.subjectAltName, 'DNS:app.example.com');
    t.false(certificate.ca);
    t.is(certificate.checkHost('app.example.com'), 'app.example.com');
    t.is(certificate.checkHost('other.example.com'), undefined);
    t.deepEqual(certificate.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'server authentication');
    t.is(new Date(certificate.validFrom).getTime(), Date.parse('2025-06-01T11:59:00Z'), 'a minute back, whole seconds');
    t.is(new Date(certificate.validTo).getTime() - new Date(certificate.validFrom).getTime(), 90 * 86_400_000);
    t.is(demo.notBefore, Date.parse('2025-06-01T11:59:00Z'));
    t.is(demo.notAfter, demo.notBefore + 90 * 86_400_000);
    const key = createPrivateKey(demo.key_pem);
    t.true(certificate.checkPrivateKey(key), 'the key belongs to the certificate');
    t.like(key.asymmetricKeyDetails, keyType === 'ecdsa-p256' ? { namedCurve: keyDetails.namedCurve } : { modulusLength: 2048 });
    t.is(key.asymmetricKeyType, keyDetails.asymmetricKeyType);
    t.is(demo.chain_pem, '');
    t.deepEqual(normalizeMaterial(demo), { cert_pem: demo.cert_pem, chain_pem: '', key_pem: demo.key_pem }, 'storable as material, already in canonical form');
  });
}

test('demo certificates: a positive random serial each time, an ARI CertID, a chosen lifetime', async (t) => {
  const [a, b] = await Promise.all([
    createDemoCertificate('a.example.com', { now }),
    createDemoCertificate('b.example.com', { now, lifetimeMs: 6 * 86_400_000 }),
  ]);
  const [factsA, factsB] = [readCertificateFacts(a.cert_pem), readCertificateFacts(b.cert_pem)];
  t.not(Buffer.from(factsA.serial).toString('hex'), Buffer.from(factsB.serial).toString('hex'));
  for (const facts of [factsA, factsB]) {
    t.is(facts.serial.length, 16);
    t.true((facts.serial[0] ?? 0) < 0x80 && (facts.serial[0] ?? 0) > 0);
  }
  t.regex(ariCertId(factsA), /^[A-Za-z0-9_-]{27}\.[A-Za-z0-9_-]{22}$/);
  t.is(factsB.notAfter - factsB.notBefore, 6 * 86_400_000);
});
