// The front's copy of the domains actor's state, kept from the replica topic: every read of a domain
// (a certificate fetch, the admin list) is answered from here without asking another thread.
import type { Material } from '../../../domains/material.js';
import type { DomainView, ReplicaMessage } from '../../../domains/protocol.js';
import type { CertificateResponse } from './protocol.js';

export interface ReplicaEntry {
  domain: DomainView;
  material: Material | null;
  /** The answer of GET /api/cert for this domain, made once per change rather than once per fetch. */
  certificateJson: string | null;
}

export class DomainReplica {
  private readonly entries = new Map<string, ReplicaEntry>();
  private readonly listeners = new Set<(message: ReplicaMessage) => void>();

  constructor(private readonly baseDomain: string) {}

  apply(message: ReplicaMessage): void {
    if (message.type === 'domain') this.entries.set(message.domain.name, { domain: message.domain, material: message.material, certificateJson: certificateJson(message.domain, message.material) });
    else this.entries.delete(message.name);
    for (const listener of this.listeners) listener(message);
  }

  /**
   * Applies a domain the owner returned to this front, ahead of its replica message (a rotated token
   * is dead here at once). Listeners (the panel's event stream) are not told: the answer can overtake
   * replica messages still on their way (an add answered `issuing` before the message saying
   * `pending` arrives), and the stream must show a domain's changes in the order they happened. When
   * the replica message came first, the entry already holds this change (same token and target) and
   * perhaps later ones, and is kept.
   */
  applyView(domain: DomainView): void {
    const entry = this.entries.get(domain.name);
    if (entry !== undefined && entry.domain.token === domain.token && entry.domain.target === domain.target) return;
    const material = entry?.material ?? null;
    this.entries.set(domain.name, { domain, material, certificateJson: certificateJson(domain, material) });
  }

  /** The domain `nameOrLabel` names: a full name under the base domain, or a label. */
  get(nameOrLabel: string): ReplicaEntry | undefined {
    const name = nameOrLabel.toLowerCase().replace(/\.$/, '');
    return this.entries.get(name) ?? this.entries.get(`${name}.${this.baseDomain}`);
  }

  all(): DomainView[] {
    return [...this.entries.values()].map((entry) => entry.domain).sort((a, b) => a.name.localeCompare(b.name));
  }

  onChange(listener: (message: ReplicaMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function certificateJson(domain: DomainView, material: Material | null): string | null {
  if (material === null || domain.expires_at === null) return null;
  const answer: CertificateResponse = { cert_pem: material.cert_pem, chain_pem: material.chain_pem, key_pem: material.key_pem, expires_at: domain.expires_at };
  return JSON.stringify(answer);
}
