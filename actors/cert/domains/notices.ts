// What the operator is told beyond the log when a certificate is in trouble: a failed issuance or
// renewal, and a certificate within 7 days of expiry (once per certificate). Sent as a JSON POST to
// `notify.webhook_url` when it is set. A notice never holds up the domain's own work, and a webhook
// that fails is logged, not retried: the next failure sends the next notice.
import { readBoundedText } from '../../../src/http/bounded-response.js';
import type { Logger } from '../../../src/log/record.js';

export interface DomainNotice {
  event: 'issuance_failed' | 'renewal_failed' | 'expires_soon';
  /** The full name of the domain. */
  domain: string;
  /** Why the attempt failed (failures only). */
  reason: string | null;
  /** Failed attempts in a row (failures only). */
  attempt: number | null;
  next_attempt_at: string | null;
  /** When the certificate being served expires; null before the first is issued. */
  expires_at: string | null;
  /** When the notice was made. */
  at: string;
}

export type Notify = (notice: DomainNotice) => void;

export const noNotices: Notify = () => {};

const webhookTimeoutMs = 10_000;
const maxAnswerBytes = 64 * 1024;

/** Posts each notice to `url`. Logs name the webhook by its origin only: its path often carries a secret. */
export function webhookNotices(url: string, log: Logger): Notify {
  const origin = new URL(url).origin;
  return (notice) => {
    void post(url, notice).then(
      () => log.debug(`notify: ${notice.event} of ${notice.domain} sent to the webhook at ${origin}`),
      (error: unknown) =>
        log.warn(
          `notify: the webhook at ${origin} did not take the ${notice.event} notice of ${notice.domain}: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  };
}

async function post(url: string, notice: DomainNotice): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'certhub' },
    body: JSON.stringify(notice),
    signal: AbortSignal.timeout(webhookTimeoutMs),
    redirect: 'error',
  });
  // Read (boundedly) so the connection can be reused; the content does not matter.
  await readBoundedText(response, maxAnswerBytes, () => new Error(`its answer is larger than ${maxAnswerBytes} bytes`)).catch(() => '');
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}
