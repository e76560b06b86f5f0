// RFC 5280 §5.3.1 CRLReason codes a subscriber gives when it revokes its certificate (RFC 8555 §7.6),
// by name. The others (cACompromise, certificateHold, removeFromCRL, aACompromise) are a CA's own, and
// Let's Encrypt refuses them from a subscriber. Apart from revocation.ts so that the site and the panel
// read the names without loading the ACME client.

export const revocationReasons = {
  unspecified: 0,
  keyCompromise: 1,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
} as const;

export type RevocationReason = keyof typeof revocationReasons;

export const revocationReasonNames = Object.keys(revocationReasons) as [RevocationReason, ...RevocationReason[]];

export function isRevocationReason(name: string): name is RevocationReason {
  return Object.hasOwn(revocationReasons, name);
}
