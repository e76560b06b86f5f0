// When each domain's next timed step falls due, and when a new certificate is to be renewed. The
// design names a `renewal` actor; until ARI needs its own thread (asking the CA's renewalInfo), the
// renewal schedule lives here, inside the domains actor that owns the records it plans: one
// DueScheduler (renewal/scheduler.ts, checked at least every 2 hours) wakes a domain for its renewal,
// for its retry after a failure, or when its slot in the CA budget comes.
import type { Clock } from '../../src/actor/clock.js';
import type { IssuedMaterial } from '../acme/protocol.js';
import { ariCertId } from '../renewal/ari.js';
import { readCertificateFacts, type CertificateFacts } from '../renewal/certificate-facts.js';
import { planRenewal } from '../renewal/logic.js';
import { DueScheduler } from '../renewal/scheduler.js';
import type { IssuedCertificate } from './logic.js';
import type { Material } from './material.js';
import type { DomainRecord } from './record.js';

/** The new certificate as the record keeps it, with its renewal planned by the lifetime rule. */
export function plannedCertificate(issued: IssuedMaterial, random: () => number = Math.random): IssuedCertificate {
  const facts = readCertificateFacts(issued.material.cert_pem);
  return { notBefore: facts.notBefore, notAfter: facts.notAfter, certId: certIdOf(facts), renewal: planRenewal({ facts }, random) };
}

/**
 * An issued record without a renewal instant (stored before renewal was planned) gets one from its
 * material; any other record is returned as it is.
 */
export function withRenewalPlanned(record: DomainRecord, material: Material | undefined, random: () => number = Math.random): DomainRecord {
  if (record.status !== 'issued' || record.renewal.due_at !== null || material === undefined) return record;
  const facts = readCertificateFacts(material.cert_pem);
  const plan = planRenewal({ facts }, random);
  return { ...record, renewal: { ...record.renewal, due_at: new Date(plan.dueAt).toISOString(), basis: plan.basis, cert_id: certIdOf(facts) } };
}

/** When the domain is next to be woken: its renewal, its retry, or its CA budget slot; undefined when it waits for nothing timed. */
export function wakeAt(record: DomainRecord): number | undefined {
  const { status, retry, renewal } = record;
  const at = status === 'issued' ? renewal.due_at : status === 'error' || (status === 'pending' && retry.waiting_for === 'budget') ? retry.next_attempt_at : null;
  return at === null ? undefined : Date.parse(at);
}

/** Wakes domains (by name) when wakeAt says. */
export class DomainWakeups {
  private readonly scheduler: DueScheduler<string>;

  constructor(clock: Clock, wake: (name: string) => void) {
    this.scheduler = new DueScheduler(clock, (names) => names.forEach(wake));
  }

  start(): void {
    this.scheduler.start();
  }

  stop(): void {
    this.scheduler.stop();
  }

  /** Schedules the record's next wake-up, replacing the one before (or drops it when there is none). */
  track(record: DomainRecord): void {
    const at = wakeAt(record);
    if (at === undefined) this.scheduler.delete(record.name);
    else this.scheduler.set(record.name, at);
  }

  forget(name: string): void {
    this.scheduler.delete(name);
  }
}

function certIdOf(facts: CertificateFacts): string | null {
  return facts.authorityKeyId === undefined ? null : ariCertId(facts);
}
