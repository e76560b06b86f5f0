// certhub run against a CA answering garbage: garbage-ca.ts in front of Pebble
// answers one step of each new domain's order with garbage. Property, over the real process: each
// such domain settles; one in error shows a readable reason (no stack trace, no key) and a retry
// time, and no certificate of it is in the data directory; one issued serves material that matches
// its key and name. Through it all, certhub keeps serving a domain issued before, and its admin API.
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { startGarbageCa, type AcmeGarbage, type AcmeStep } from '../fixtures/acme/garbage-ca.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, fetchCertificate, powerdnsSection, settled, waitForDomain } from '../../helpers/certhub-domains.js';
import { checkAsyncProperty } from '../../helpers/fuzz.js';

const steps: readonly AcmeStep[] = ['order', 'authorization', 'finalize', 'certificate'];
const garbage: fc.Arbitrary<AcmeGarbage> = fc.oneof(
  fc.record({
    kind: fc.constant('retyped-fields' as const),
    values: fc.array(fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('html' as const), status: fc.constantFrom(200, 502) }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
  fc.record({ kind: fc.constant('problem' as const), status: fc.constantFrom(200, 500) }),
  fc.record({
    kind: fc.constant('pem' as const),
    pem: fc.constantFrom('not a certificate\n', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n'),
  }),
  fc.record({ kind: fc.constant('appended' as const), text: fc.constant('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n') }),
);

/** The material stored for `name` in the data directory (`domains/<name>.json`, whose `material` is null until a first certificate); any other file of it is a failure. */
async function storedMaterial(dataDir: string, name: string): Promise<unknown> {
  const files = (await readdir(join(dataDir, 'domains'))).filter((file) => file.startsWith(`${name}.`));
  assert.deepEqual(files, [`${name}.json`], `the files of ${name}`);
  return (JSON.parse(await readFile(join(dataDir, 'domains', `${name}.json`), 'utf8')) as { material: unknown }).material;
}

function assertSound(material: { cert_pem: string; chain_pem: string; key_pem: string }, name: string, context: string): void {
  const leaf = new X509Certificate(material.cert_pem);
  for (const pem of material.chain_pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []) {
    assert.doesNotThrow(() => new X509Certificate(pem), `${context}: a chain served with a block that is no certificate`);
  }
  assert.ok(leaf.checkPrivateKey(createPrivateKey(material.key_pem)), `${context}: material whose key does not match`);
  assert.ok(leaf.checkHost(name) !== undefined, `${context}: material not for ${name}`);
}

test('certhub with a CA answering garbage: each domain settles with a readable reason and a retry, or sound material; the rest keeps being served', async (t) => {
  const stack = await startCertStack();
  const ca = await startGarbageCa(stack.pebble);
  try {
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: ca.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    const good = await addDomain(server, 'good', '203.0.113.5');
    assert.equal((await waitForDomain(server, 'good', settled, 90_000)).status, 'issued', 'the domain ordered before any garbage is issued');
    let count = 0;
    const run = fc.asyncProperty(fc.constantFrom(...steps), garbage, async (step, chosen) => {
      count += 1;
      const label = `fuzz${count}`;
      const name = `${label}.${stack.powerdns.zone}`;
      const context = `${step} ${JSON.stringify(chosen)}`;
      ca.garbage = { step, garbage: chosen };
      try {
        const added = await addDomain(server, label, '203.0.113.6');
        const domain = await waitForDomain(server, label, settled, 90_000);
        if (domain.status === 'error') {
          assert.ok(domain.error !== null && domain.error.length > 0 && domain.error.length <= 1500, `${context}: reason ${JSON.stringify(domain.error)}`);
          assert.doesNotMatch(domain.error, /\n\s+at |PRIVATE KEY/, `${context}: a stack trace or a key in the reason`);
          assert.ok(Date.parse(domain.next_attempt_at ?? '') > Date.now() - 1000, `${context}: no retry planned`);
          assert.equal((await fetchCertificate(server, label, added.token)).status >= 400, true, `${context}: material served for a domain in error`);
          assert.equal(await storedMaterial(dataDir, name), null, `${context}: material stored for a domain never issued`);
        } else {
          const response = await fetchCertificate(server, label, added.token);
          assert.equal(response.status, 200, context);
          assertSound((await response.json()) as { cert_pem: string; chain_pem: string; key_pem: string }, name, context);
        }
      } finally {
        ca.garbage = undefined;
      }
      const stillServed = await fetchCertificate(server, 'good', good.token);
      assert.equal(stillServed.status, 200, `${context}: the domain issued before is no longer served`);
      assertSound((await stillServed.json()) as { cert_pem: string; chain_pem: string; key_pem: string }, `good.${stack.powerdns.zone}`, context);
      assert.equal((await server.admin('api/admin/domains')).status, 200, `${context}: the admin API does not answer`);
    });
    await checkAsyncProperty(t, run, 20, { shrink: false });
    t.true(ca.replaced > 0, 'garbage was answered');
  } finally {
    await ca.close();
    await stopCertStack(stack);
  }
});
