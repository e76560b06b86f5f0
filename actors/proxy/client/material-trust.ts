// Whether the material certhub answered was issued by a CA this machine trusts: the
// leaf and the chain must lead, signature by signature, to one of the system's roots or of a
// configured CA bundle (a private CA, Pebble in tests). Without this, whoever answers in certhub's
// place (a man in the middle of a plain or mis-pinned connection, a server gone wrong) could replace
// good material with a key and certificate of its own making. A self-signed demo certificate
// (`certhub --demo`) is accepted only when the user says so (--allow-untrusted).
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';

/** What issued material must chain to: the trust anchors, or nothing when the user allowed untrusted material. */
export type MaterialTrust = { anchors: readonly X509Certificate[] } | 'untrusted-allowed';

/** A chain longer than this is not one a public or private CA hands out. */
const maxChainLength = 8;

let systemAnchors: X509Certificate[] | undefined;

/** The system's roots (Node's bundled store) plus every certificate of `bundlePem`, when given. */
export function trustAnchors(bundlePem?: string): { anchors: X509Certificate[] } {
  systemAnchors ??= rootCertificates.map((pem) => new X509Certificate(pem));
  return { anchors: bundlePem === undefined ? systemAnchors : [...systemAnchors, ...certificatesOf(bundlePem)] };
}

/** Every certificate of a PEM bundle; throws when there is none or one cannot be read. */
export function certificatesOf(bundlePem: string): X509Certificate[] {
  const blocks = bundlePem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('holds no PEM certificate');
  return blocks.map((block) => new X509Certificate(block));
}

/**
 * The problem with `leaf` and its `chain` (issuer first) under `trust` at `now` (epoch ms), or
 * undefined when they lead to a trust anchor. Each link is checked by name and signature; each
 * issuer in between must be a CA and valid at `now`.
 */
export function chainProblem(leaf: X509Certificate, chain: readonly X509Certificate[], trust: MaterialTrust, now: number): string | undefined {
  if (trust === 'untrusted-allowed') return undefined;
  let current = leaf;
  const rest = [...chain];
  for (let depth = 0; depth <= maxChainLength; depth++) {
    if (trust.anchors.some((anchor) => anchor.fingerprint256 === current.fingerprint256 || (current.checkIssued(anchor) && current.verify(anchor.publicKey))))
      return undefined;
    const issuer = rest.shift();
    if (issuer === undefined)
      return `the chain does not lead to a trusted root (its last issuer: ${oneLine(current.issuer)}); a private CA? pass it with --ca-bundle FILE`;
    if (!current.checkIssued(issuer) || !current.verify(issuer.publicKey)) return `${oneLine(issuer.subject)} did not sign ${oneLine(current.subject)}`;
    if (!issuer.ca) return `${oneLine(issuer.subject)} in the chain is not a CA`;
    if (Date.parse(issuer.validTo) <= now || Date.parse(issuer.validFrom) > now) return `${oneLine(issuer.subject)} in the chain is not valid now`;
    current = issuer;
  }
  return `the chain is longer than ${maxChainLength} certificates`;
}

function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
