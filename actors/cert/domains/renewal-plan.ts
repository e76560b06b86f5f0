// A certificate's renewal plan, read from the certificate itself (its lifetime, its ARI CertID). Kept
// apart from renewals.ts and loaded by the domains actor on first use: the ASN.1 parser it needs costs
// a fifth of a second to load, which a restart with nothing to plan should not pay before it serves.
import type { IssuedMaterial } from '../acme/protocol.js';
import { ariCertId } from '../renewal/ari.js';
import { readCertificateFacts, type CertificateFacts } from '../renewal/certificate-facts.js';
import { planRenewal } from '../renewal/logic.js';
import type { IssuedCertificate } from './logic.js';
import type { Material } from '../acme/protocol.js';
import type { DomainRecord } from './record.js';
import { needsRenewalPlan } from './renewals.js';

/** The new certificate as the record keeps it, with its renewal planned by the lifetime rule. */
export function plannedCertificate(issued: IssuedMaterial, random: () => number = Math.random): IssuedCertificate {
  const facts = readCertificateFacts(issued.material.cert_pem);
  return { notBefore: facts.notBefore, notAfter: facts.notAfter, certId: certIdOf(facts), renewal: planRenewal({ facts }, random) };
}

/**
 * An issued record without a renewal instant (stored before renewal was planned) gets one from its
 * material; any other record, or one whose certificate cannot be read, is returned as it is.
 */
export function withRenewalPlanned(record: DomainRecord, material: Material | undefined, random: () => number = Math.random): DomainRecord {
  if (material === undefined || !needsRenewalPlan({ record, material })) return record;
  let facts: CertificateFacts;
  try {
    facts = readCertificateFacts(material.cert_pem);
  } catch {
    return record;
  }
  const plan = planRenewal({ facts }, random);
  return { ...record, renewal: { ...record.renewal, due_at: new Date(plan.dueAt).toISOString(), basis: plan.basis, cert_id: certIdOf(facts) } };
}

function certIdOf(facts: CertificateFacts): string | null {
  return facts.authorityKeyId === undefined ? null : ariCertId(facts);
}
