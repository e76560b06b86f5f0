// A domain's status and every change it may make, as one table: the code checks transitions against
// it and docs/certhub.md shows it. `removed` is where a domain goes when it is deleted; it is never stored.
import { OutpostError } from '../../../src/errors.js';

export const domainStatuses = ['pending', 'issuing', 'issued', 'error'] as const;
export type DomainStatus = (typeof domainStatuses)[number];

export const domainEvents = ['start', 'issued', 'failed', 'interrupted', 'renew', 'retry', 'remove'] as const;
export type DomainEvent = (typeof domainEvents)[number];

export interface DomainTransition {
  from: DomainStatus;
  event: DomainEvent;
  to: DomainStatus | 'removed';
  /** What happens, in the words docs/certhub.md uses. */
  when: string;
}

export const domainTransitions: readonly DomainTransition[] = [
  {
    from: 'pending',
    event: 'start',
    to: 'issuing',
    when: 'the record is published, the CA budget has a slot and no backoff delay is running: a DNS-01 order starts',
  },
  { from: 'pending', event: 'failed', to: 'error', when: 'the DNS record could not be published' },
  { from: 'issuing', event: 'issued', to: 'issued', when: 'the certificate arrived; certificate, chain and key replace the old ones in one write' },
  {
    from: 'issuing',
    event: 'failed',
    to: 'error',
    when: 'the order failed; the reason is kept, a retry is scheduled with backoff, old material is still served',
  },
  {
    from: 'issuing',
    event: 'interrupted',
    to: 'pending',
    when: 'a restart found the order in flight, or the CA is still issuing a finalized order; it is resumed, no failure counted',
  },
  {
    from: 'issued',
    event: 'renew',
    to: 'issuing',
    when: 'renewal is due (ARI window, or a third of the lifetime left); the old material is served until the new arrives',
  },
  {
    from: 'error',
    event: 'retry',
    to: 'pending',
    when: 'the backoff delay has passed, or the operator asked for a retry (`POST /api/admin/domains/<name>/retry`)',
  },
  ...domainStatuses.map(
    (from): DomainTransition => ({ from, event: 'remove', to: 'removed', when: 'removed: record and material deleted, token dead at once' }),
  ),
];

/** The status `event` leads to from `from`; ERR_CONFLICT when the table has no such transition. */
export function nextStatus(from: DomainStatus, event: DomainEvent): DomainStatus | 'removed' {
  const transition = domainTransitions.find((candidate) => candidate.from === from && candidate.event === event);
  if (transition === undefined) throw new OutpostError('ERR_CONFLICT', `a domain that is ${from} cannot take the event "${event}"`);
  return transition.to;
}

/** The table as Markdown, as docs/certhub.md shows it (a unit test compares them). */
export function transitionTableMarkdown(): string {
  const rows = domainTransitions.map(({ from, event, to, when }) => `| ${from} | ${event} | ${to} | ${when} |`);
  return ['| from | event | to | when |', '|---|---|---|---|', ...rows].join('\n');
}
