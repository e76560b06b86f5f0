// Dates as the panel shows them: UTC, ISO order, so every administrator reads the same thing.

/** `2027-02-21`, or the dash for a date not known yet. */
export function shortDate(iso: string | null): string {
  return iso === null ? '—' : iso.slice(0, 10);
}

/** `2027-02-21 13:45 UTC`. */
export function dateTime(iso: string | null, none = '—'): string {
  if (iso === null) return none;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** When a waiting domain tries again and why: a refusal's Retry-After can be days away. */
export function nextAttemptText(nextAttemptAt: string | null, waitingFor: 'backoff' | 'retry_after' | 'budget' | 'issuance' | null): string {
  if (nextAttemptAt === null) return 'none planned';
  const why =
    waitingFor === 'retry_after'
      ? 'the CA or DNS provider asked to wait (Retry-After)'
      : waitingFor === 'budget'
        ? "the next slot in the CA's certificate budget"
        : waitingFor === 'issuance'
          ? 'the CA is still issuing the order; it is resumed'
          : 'backoff after the failure';
  return `${dateTime(nextAttemptAt)}: ${why}`;
}

/** `13:45:02` for a log line, local time (the log is read live, beside the user's clock). */
export function clockTime(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString([], { hour12: false });
}
