// The admin API's view of a stored domain, and the change the book publishes for it.
import type { DomainChange, DomainView } from './protocol.js';
import type { DomainRecord } from './record.js';
import type { StoredDomain } from './store.js';

export function domainView(record: DomainRecord): DomainView {
  return {
    name: record.name,
    label: record.label,
    target: record.target,
    record_type: record.record_type,
    profile: record.profile,
    status: record.status,
    error: record.error,
    created_at: record.created_at,
    issued_at: record.issued_at,
    expires_at: record.expires_at,
    token: record.token,
    last_fetch: record.last_fetch,
    next_attempt_at: record.retry.next_attempt_at,
    waiting_for: record.retry.waiting_for,
    renewal: { due_at: record.renewal.due_at, basis: record.renewal.basis },
    issued_by: record.issued_by?.directory_url ?? null,
    names: record.names,
    wildcard_records: record.wildcard_records,
    own_key: record.own_key,
    csr: record.csr === null ? null : { key_type: record.csr.key_type, received_at: record.csr.received_at },
    csr_wanted: record.csr_wanted,
  };
}

export function domainChange(domain: StoredDomain): DomainChange {
  return { type: 'domain', domain: domainView(domain.record), material: domain.material ?? null };
}
