// The check of certhub's answer before anything reaches the disk: good material passes as it is; every
// kind of nonsense is refused with a message saying what is wrong; material that does not lead to a
// trusted root is refused unless untrusted material was allowed.
import test from 'ava';
import { createDemoCertificate } from '../../../actors/cert/domains/demo-certificate.js';
import { checkCertificateAnswer } from '../../../actors/proxy/client/certificate-answer.js';
import { trustAnchors } from '../../../actors/proxy/client/material-trust.js';
import { testChain } from '../../helpers/certificates.js';

const now = Date.parse('2026-06-01T12:00:00Z');

/** The checks other than the chain's trust, which the demo's self-signed certificates cannot pass. */
function checkUntrusted(body: unknown, requested: string, at: number) {
  return checkCertificateAnswer(body, requested, at, 'untrusted-allowed');
}

async function answerFor(name: string, at = now) {
  const demo = await createDemoCertificate(name, { now: at });
  return { cert_pem: demo.cert_pem, chain_pem: demo.chain_pem, key_pem: demo.key_pem, expires_at: new Date(demo.notAfter).toISOString() };
}

test("a good answer gives its material as it came, under the full name, with the leaf's expiry", async (t) => {
  const answer = await answerFor('app.example.test');
  const material = checkUntrusted(answer, 'app.example.test', now);
  t.is(material.domain, 'app.example.test');
  t.is(material.certPem, answer.cert_pem);
  t.is(material.keyPem, answer.key_pem);
  t.is(material.chainPem, '');
  t.is(material.expiresAt, Date.parse(answer.expires_at));
});

test('a label alone is refused (any label.* certificate would match it); a name in another case or with the root dot is the same name', async (t) => {
  const answer = await answerFor('app.example.test');
  t.throws(() => checkUntrusted(answer, 'app', now), { message: /app is a label, not a full name/ });
  t.is(checkUntrusted(answer, 'App.Example.Test.', now).domain, 'app.example.test');
});

test('material is written only when its chain leads to a trusted root: the system roots, or a CA bundle given', async (t) => {
  const chain = await testChain('app.example.test', { notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 30 * 86_400_000) });
  const answer = { cert_pem: chain.certPem, chain_pem: '', key_pem: chain.keyPem, expires_at: new Date(now + 30 * 86_400_000).toISOString() };
  t.is(checkCertificateAnswer(answer, 'app.example.test', now, trustAnchors(chain.caPem)).domain, 'app.example.test');
  t.is(checkCertificateAnswer({ ...answer, chain_pem: chain.caPem }, 'app.example.test', now, trustAnchors(chain.caPem)).domain, 'app.example.test');
  t.throws(() => checkCertificateAnswer(answer, 'app.example.test', now, trustAnchors()), {
    message: /does not lead to a trusted root \(its last issuer: .*\); a private CA\? pass it with --ca-bundle FILE/,
  });
  t.throws(() => checkCertificateAnswer({ ...answer, chain_pem: chain.caPem }, 'app.example.test', now, trustAnchors()), {
    message: /does not lead to a trusted root/,
  });
  const other = await testChain('app.example.test', { notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 30 * 86_400_000) });
  t.throws(
    () => checkCertificateAnswer(answer, 'app.example.test', now, trustAnchors(other.caPem)),
    { message: /does not lead to a trusted root/ },
    'a CA of the same name but another key',
  );
  const demo = await answerFor('app.example.test');
  t.throws(
    () => checkCertificateAnswer(demo, 'app.example.test', now, trustAnchors()),
    { message: /does not lead to a trusted root/ },
    'a self-signed demo certificate',
  );
  t.is(checkCertificateAnswer(demo, 'app.example.test', now, 'untrusted-allowed').domain, 'app.example.test');
});

test('a chain is kept when its first certificate issued the leaf, less a root, and refused when its first did not issue the leaf', async (t) => {
  const chain = await testChain('app.example.test', { notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 30 * 86_400_000) });
  const answer = { cert_pem: chain.certPem, chain_pem: chain.caPem, key_pem: chain.keyPem, expires_at: new Date(now + 30 * 86_400_000).toISOString() };
  t.is(checkUntrusted(answer, 'app.example.test', now).chainPem, '', 'the chain held only the self-signed root, which no full chain carries');
  const stranger = await answerFor('other.example.test');
  t.throws(() => checkUntrusted({ ...answer, chain_pem: stranger.cert_pem }, 'app.example.test', now), { message: /did not issue cert_pem/ });
});

test('nonsense is refused, each time naming what is wrong and never quoting the key', async (t) => {
  const answer = await answerFor('app.example.test');
  const other = await answerFor('app.example.test');
  const cases: [unknown, RegExp][] = [
    [null, /not a certificate response/],
    [{ ...answer, key_pem: 7 }, /not a certificate response/],
    [{ ...answer, key_pem: undefined }, /certhub sent no key: this domain keeps its key on its host \(own_key\); fetch it with --own-key/],
    [{ ...answer, cert_pem: 'hello' }, /cert_pem holds no PEM block/],
    [{ ...answer, cert_pem: `${answer.cert_pem}${other.cert_pem}` }, /exactly one CERTIFICATE/],
    [
      {
        ...answer,
        cert_pem: answer.cert_pem
          .split('\n')
          .filter((_, index) => index !== 3)
          .join('\n'),
      },
      /cert_pem is not a readable X.509 certificate/,
    ],
    [{ ...answer, key_pem: other.key_pem }, /key_pem does not match the certificate/],
    [{ ...answer, key_pem: answer.cert_pem }, /exactly one PRIVATE KEY block/],
    [{ ...answer, chain_pem: answer.key_pem }, /chain_pem block 1 is a PRIVATE KEY/],
    [{ ...answer, expires_at: 'soon' }, /expires_at "soon" is not a date/],
    [{ ...answer, expires_at: '2030-01-01T00:00:00Z' }, /is not the certificate's notAfter/],
  ];
  for (const [body, message] of cases) {
    const error = t.throws(() => checkUntrusted(body, 'app.example.test', now), { message }, JSON.stringify(body)?.slice(0, 80));
    t.false(error?.message.includes('PRIVATE KEY-----') ?? true);
  }
  t.throws(() => checkUntrusted(answer, 'web.example.test', now), { message: /not for web\.example\.test/ });
});

test('with --own-key the answer holds no key: the material comes without one, and says whether certhub wants a CSR', async (t) => {
  const keyless: Record<string, unknown> = { ...(await answerFor('app.example.test')) };
  delete keyless.key_pem;
  const material = checkCertificateAnswer({ ...keyless, csr_wanted: true }, 'app.example.test', now, 'untrusted-allowed', true);
  t.is(material.keyPem, '');
  t.true(material.csrWanted);
  const keyed = await answerFor('app.example.test');
  t.throws(() => checkCertificateAnswer(keyed, 'app.example.test', now, 'untrusted-allowed', true), {
    message: /certhub sent a key: it makes the key of this domain, which is not marked own_key/,
  });
});

test('an expired certificate, or one not valid for a day yet, is refused', async (t) => {
  const answer = await answerFor('app.example.test');
  t.throws(() => checkUntrusted(answer, 'app.example.test', Date.parse(answer.expires_at) + 1000), { message: /expired at/ });
  t.throws(() => checkUntrusted(answer, 'app.example.test', now - 3 * 86_400_000), { message: /not valid before/ });
});
