// Turns the book's changes into replica messages: a domain's chain goes out once, as its own message
// kept under its id, before the first domain that refers to it (protocol.ts, ReplicaMaterial).
import { createHash } from 'node:crypto';
import type { DomainChange, ReplicaMessage } from './protocol.js';

export type PublishReplica = (message: ReplicaMessage, options: { key: string; retain: boolean }) => void;

export class ReplicaPublisher {
  /** Chain text -> its id, for the chains published so far (a handful: one per CA chain seen). */
  private readonly chainIds = new Map<string, string>();

  constructor(private readonly publish: PublishReplica) {}

  change(change: DomainChange): void {
    if (change.type === 'removed') {
      this.publish(change, { key: change.name, retain: false });
      return;
    }
    const { domain, material } = change;
    const replicaMaterial = material === null ? null : { cert_pem: material.cert_pem, key_pem: material.key_pem, chain: this.chainId(material.chain_pem) };
    this.publish({ type: 'domain', domain, material: replicaMaterial }, { key: domain.name, retain: true });
  }

  /** Says the book as loaded has been published (ReplicaMessage `loaded`); its key meets no domain's, which hold no ':'. */
  loaded(): void {
    this.publish({ type: 'loaded' }, { key: 'loaded:', retain: true });
  }

  private chainId(chainPem: string): string {
    let id = this.chainIds.get(chainPem);
    if (id === undefined) {
      // From the content, so the ids a restarted actor gives are the ones the fronts already hold.
      id = createHash('sha256').update(chainPem).digest('base64url').slice(0, 22);
      this.chainIds.set(chainPem, id);
      // Domain names hold no ':', so a chain's key never meets a domain's.
      this.publish({ type: 'chain', id, chain_pem: chainPem }, { key: `chain:${id}`, retain: true });
    }
    return id;
  }
}
