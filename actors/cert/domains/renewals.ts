// When each domain's next timed step falls due, and when a certificate is to be renewed: by the CA's
// renewal information (ARI, RFC 9773, asked through the acme actor) when it offers it, else by the
// lifetime rule. The design names a `renewal` actor; for now the renewal schedule lives here, inside
// the domains actor that owns the records it plans: one DueScheduler (renewal/scheduler.ts, checked
// at least every 2 hours) wakes a domain for its renewal, its next ARI check, its retry after a
// failure, or its slot in the CA budget.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { CaAccountState, CaIdentity, RenewalInfoAnswer } from '../acme/protocol.js';
import { forgetAriState } from './logic.js';
import { defaultAriCheckIntervalMs } from '../renewal/ari.js';
import { expiryNoticeAt, planRenewal } from '../renewal/logic.js';
import { DueScheduler } from '../renewal/scheduler.js';
import type { Issuer } from './issuer.js';
import type { Material } from '../acme/protocol.js';
import { isoTime, type DomainRecord } from './record.js';

/** An issued certificate whose renewal is not planned yet (a store written before renewals were planned). */
export function needsRenewalPlan({ record, material }: { record: DomainRecord; material: Material | undefined }): boolean {
  return record.status === 'issued' && record.renewal.due_at === null && material !== undefined;
}

/** When the domain is next to be woken: its renewal, its retry, or its CA budget slot; undefined when it waits for nothing timed. */
export function wakeAt(record: DomainRecord): number | undefined {
  const { status, retry, renewal } = record;
  const instants =
    status === 'issued'
      ? [renewal.due_at, renewal.ari_next_check_at]
      : [status === 'error' || (status === 'pending' && (retry.waiting_for === 'budget' || retry.waiting_for === 'issuance')) ? retry.next_attempt_at : null];
  const times = instants.filter((at) => at !== null).map((at) => Date.parse(at));
  const notice = expiryNoticeAt(record.issued_at, record.expires_at, renewal.expiry_notice_for);
  if (notice !== undefined) times.push(notice);
  return times.length === 0 ? undefined : Math.min(...times);
}

/** Whether an issued domain woke for its renewal (rather than for an ARI check). */
export function renewalDue(record: DomainRecord, now: number): boolean {
  return record.status === 'issued' && record.renewal.due_at !== null && Date.parse(record.renewal.due_at) <= now;
}

/** The ARI CertID to send as `replaces` on a renewal order, with the CA and account it is known to: only when the CA's ARI planned it. */
export function replacesOf(record: DomainRecord): { certId: string; ca: CaIdentity } | undefined {
  const { issued_at, issued_by, renewal } = record;
  if (issued_at === null || issued_by === null || renewal.basis !== 'ari' || renewal.cert_id === null) return undefined;
  return { certId: renewal.cert_id, ca: caIdentityOf(issued_by) };
}

export function caIdentityOf(issuedBy: { directory_url: string; account_url: string }): CaIdentity {
  return { directoryUrl: issuedBy.directory_url, accountUrl: issuedBy.account_url };
}

/**
 * Whether the record's ARI state (its CertID above all) belongs to a CA or account certhub does not
 * hold now: its CA is not among `accounts`, holds another account, or (a record from before issued_by
 * was kept) is unknown.
 */
export function staleAriState(record: DomainRecord, accounts: readonly CaAccountState[]): boolean {
  const { renewal, issued_by } = record;
  if (renewal.cert_id === null && renewal.ari_next_check_at === null && renewal.basis !== 'ari') return false;
  if (issued_by === null) return true;
  const now = accounts.find((ca) => ca.directoryUrl === issued_by.directory_url);
  return now === undefined || (now.accountUrl !== null && now.accountUrl !== issued_by.account_url);
}

/**
 * Asks the CA's renewal information for the record's certificate and returns the record with its plan
 * updated: the ARI window when the CA answers one, the plan unchanged (asked again later) when the
 * answer fails, and no more asking when the CA offers no ARI.
 */
export async function askRenewalInfo(
  record: DomainRecord,
  issuer: Issuer,
  now: number,
  log: Logger,
  random: () => number = Math.random,
): Promise<DomainRecord> {
  const { cert_id: certId } = record.renewal;
  if (certId === null || record.issued_at === null || record.expires_at === null || record.issued_by === null) return record;
  let answer: RenewalInfoAnswer | null | 'unknown';
  try {
    answer = await issuer.renewalInfo(certId, caIdentityOf(record.issued_by));
  } catch (error) {
    answer = { ok: false, reason: error instanceof Error ? error.message : String(error), nextCheckAt: now + defaultAriCheckIntervalMs };
  }
  if (answer === 'unknown') {
    log.warn(`${record.name} was issued by ${record.issued_by.directory_url} with an account certhub does not hold there now: its ARI state is dropped`);
    return forgetAriState(record, random);
  }
  if (answer === null) return record.renewal.ari_next_check_at === null ? record : { ...record, renewal: { ...record.renewal, ari_next_check_at: null } };
  const renewal = { ...record.renewal, ari_next_check_at: isoTime(answer.nextCheckAt) };
  if (!answer.ok) {
    log.warn(`the renewal information of ${record.name} could not be read (${answer.reason}); asking again at ${renewal.ari_next_check_at}`);
    return { ...record, renewal };
  }
  const previous =
    renewal.due_at === null || renewal.basis === null
      ? undefined
      : { dueAt: Date.parse(renewal.due_at), basis: renewal.basis, explanationUrl: renewal.ari_explanation_url ?? undefined };
  const facts = { notBefore: Date.parse(record.issued_at), notAfter: Date.parse(record.expires_at) };
  const plan = planRenewal({ facts, ari: { window: answer.window, explanationUrl: answer.explanationUrl }, previous }, random);
  return { ...record, renewal: { ...renewal, due_at: isoTime(plan.dueAt), basis: plan.basis, ari_explanation_url: plan.explanationUrl ?? null } };
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
