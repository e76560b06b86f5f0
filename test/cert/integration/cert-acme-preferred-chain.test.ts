// acme.preferred_chain against Pebble offering alternate chains (PEBBLE_ALTERNATE_ROOTS: a second root
// signs its own intermediates, and the certificate's answer links the other chain as rel="alternate",
// RFC 8555 §7.4.2; PEBBLE_CHAIN_LENGTH: more than one intermediate under each root). An order naming
// the alternate root's common name gets the chain that ends under it; a name no chain has keeps the
// default chain. Then certhub run with acme.preferred_chain serves the alternate chain.
import { X509Certificate } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import type { PebbleServer } from '../../../benchmarks/third-party/pebble.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, powerdnsSection, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { withAcme } from '../helpers/acme.js';

/** More than one intermediate under each root, so that the chain is told apart by more than its last link. */
const alternateChains = { env: { PEBBLE_ALTERNATE_ROOTS: '1', PEBBLE_CHAIN_LENGTH: '4' } };

/** Pebble's root number `index` (0: the default chain's, 1: the alternate's) and its common name. */
async function root(pebble: PebbleServer, index: number): Promise<{ pem: string; name: string }> {
  const { status, body } = await pebble.get(`${pebble.managementUrl}/roots/${index}`);
  if (status !== 200) throw new Error(`pebble answered HTTP ${status} for /roots/${index}`);
  return { pem: body, name: commonName(new X509Certificate(body).subject) };
}

function commonName(distinguishedName: string): string {
  const match = /^CN=(.*)$/m.exec(distinguishedName);
  if (match === null) throw new Error(`no CN in ${distinguishedName}`);
  return match[1]!;
}

function certificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
}

/** Leaf first, each certificate is signed by the next, and the last by `rootPem`: the chain ends under that root. */
function assertChainUnder(t: ExecutionContext, leafAndChainPem: string, rootPem: string, what: string): void {
  const chain = [...certificates(leafAndChainPem), new X509Certificate(rootPem)];
  t.true(chain.length >= 4, `${what}: the leaf, at least two intermediates, the root`);
  for (let index = 0; index < chain.length - 1; index++) t.true(chain[index]!.verify(chain[index + 1]!.publicKey), `${what}: link ${index}`);
}

test(
  'preferred_chain naming the alternate root gets its chain; an unknown name keeps the default',
  withAcme,
  async (t, fixture) => {
    const [main, alternate] = [await root(fixture.pebble, 0), await root(fixture.pebble, 1)];
    t.not(main.name, alternate.name);
    const zone = fixture.powerdns.zone;
    const context = fixture.issueContext();
    const preferred = await issueCertificate({ name: `alt.${zone}`, keyType: 'ecdsa-p256', preferredChain: alternate.name }, context);
    assertChainUnder(t, preferred.certPem + preferred.chainPem, alternate.pem, 'preferred alternate');
    const unknown = await issueCertificate({ name: `unknown.${zone}`, keyType: 'ecdsa-p256', preferredChain: 'No Such Root CA' }, context);
    assertChainUnder(t, unknown.certPem + unknown.chainPem, main.pem, 'unknown name');
    const none = await issueCertificate({ name: `plain.${zone}`, keyType: 'ecdsa-p256' }, context);
    assertChainUnder(t, none.certPem + none.chainPem, main.pem, 'no preference');
    const named = await issueCertificate({ name: `main.${zone}`, keyType: 'ecdsa-p256', preferredChain: main.name }, context);
    assertChainUnder(t, named.certPem + named.chainPem, main.pem, 'preferred default');
  },
  alternateChains,
);

test('certhub run with acme.preferred_chain serves the alternate chain', async (t) => {
  const stack = await startCertStack({}, alternateChains);
  try {
    const alternate = await root(stack.pebble, 1);
    const sections = stackSections(stack, [stack.powerdns.nameserver], 30);
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      ...sections,
      acme: { ...sections.acme, preferred_chain: alternate.name },
    });
    const server = await startCerthub(t, dataDir, []);
    await addDomain(server, 'alt', '203.0.113.9');
    const domain = await waitForDomain(server, 'alt', settled, 60_000);
    t.is(domain.status, 'issued', domain.error ?? '');
    const response = await server.admin('api/admin/domains/alt/cert.crt');
    t.is(response.status, 200);
    assertChainUnder(t, await response.text(), alternate.pem, 'served');
  } finally {
    await stopCertStack(stack);
  }
});
