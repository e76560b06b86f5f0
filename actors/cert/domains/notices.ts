// What the operator is told beyond the log: a certificate issued, an issuance or renewal that failed,
// a certificate within 7 days of expiry unrenewed (once per certificate), a host that turned stale,
// and a move to the next CA of acme.cas. The domains actor makes notices; ../notify/ delivers them to
// the channels of `notify` (durably, retried). A notice never holds up the domain's own work.

export const noticeEvents = ['issued', 'issuance_failed', 'renewal_failed', 'expires_soon', 'host_stale', 'host_reload_failed', 'ca_fallback'] as const;

export type NoticeEvent = (typeof noticeEvents)[number];

export interface DomainNotice {
  event: NoticeEvent;
  /** The full name of the domain. */
  domain: string;
  /** Why the attempt failed (failures), why the CA changed (ca_fallback), why the host is stale (host_stale, host_reload_failed). */
  reason: string | null;
  /** Failed attempts in a row (failures only). */
  attempt: number | null;
  next_attempt_at: string | null;
  /** When the certificate being served expires; null before the first is issued. */
  expires_at: string | null;
  /** The ACME directory URL the next attempt goes to (ca_fallback), or of the CA that issued (issued). */
  ca: string | null;
  /** The host that turned stale (host_stale and host_reload_failed only). */
  host: { id: string; name: string } | null;
  /** When the notice was made. */
  at: string;
}

export type Notify = (notice: DomainNotice) => void;

export const noNotices: Notify = () => {};
