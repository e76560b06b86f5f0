// The front's copy of the domains actor's state, kept from the replica topic: every read of a domain
// (a certificate fetch, the admin list) is answered from here without asking another thread.
import { matchesDigest, secretDigest } from '../../../src/crypto/constant-time.js';
import type { Material } from '../acme/protocol.js';
import type { DomainDetail, DomainView, ListedDomain, ReplicaMaterial, ReplicaMessage } from '../domains/protocol.js';
import { noDeployment, type Deployment, type HostView } from '../hosts/deployment.js';
import { matchRetired, type RetiredToken } from '../domains/retired-tokens.js';
import { summaryOf } from '../domains/summary.js';
import type { HostTokenRecord } from '../hosts/host-tokens.js';
import { HostTokenReplica } from './host-token-replica.js';
import type { CertificateResponse } from './protocol.js';

export interface ReplicaEntry {
  domain: DomainView;
  material: ReplicaMaterial | null;
}

/** Answers of GET /api/cert kept made: the domains fetched most, without a second copy of every certificate. */
const cachedAnswers = 1024;
/** What an unknown domain's token check compares with, so that it takes as long as a known one's. */
const noTokenDigest = secretDigest('');

export class DomainReplica {
  private readonly entries = new Map<string, ReplicaEntry>();
  private readonly chains = new Map<string, string>();
  /** Domain name -> its retired tokens (digests), removed domains included. */
  private readonly retired = new Map<string, RetiredToken[]>();
  /** Domain name -> the hosts that report on it, judged by the domains actor; absent: none. */
  private readonly hosts = new Map<string, { hosts: HostView[]; deployment: Deployment }>();
  /** Domain name -> its GET /api/cert answer, encoded, least recently used first. */
  private readonly answers = new Map<string, Buffer>();
  private readonly listeners = new Set<(message: ReplicaMessage) => void>();
  /** The host tokens issued under each domain (../hosts/host-tokens.ts). */
  readonly hostTokens = new HostTokenReplica();
  /** Token digests of the domains fetched, made on first use; a changed domain is a new view, and drops its own. */
  private readonly tokenDigests = new WeakMap<DomainView, Buffer>();
  /** `listJson()` and `summariesJson()`, until the next change. */
  private list: string | undefined;
  private summaries: string | undefined;
  /** Resolved by the first `loaded` message: everything the domains actor loaded is here. */
  private markLoaded: () => void = () => {};
  /** Resolves once the domains actor's loaded book has reached this replica. */
  readonly loaded = new Promise<void>((resolve) => {
    this.markLoaded = resolve;
  });

  /**
   * `ownDomain`: certhub's own `tls.domain`, whose key it serves with. Its token is never shown
   * (the admin views carry an empty one) and its certificate is never given out for a token.
   */
  constructor(
    private readonly baseDomain: string,
    private readonly ownDomain?: string,
  ) {}

  /** Whether `name` is certhub's own tls.domain. */
  isOwnDomain(name: string): boolean {
    return name === this.ownDomain;
  }

  /** The view as the admin API shows it: the own domain's token withheld. */
  shown(view: DomainView): DomainView {
    return this.isOwnDomain(view.name) ? { ...view, token: '' } : view;
  }

  apply(message: ReplicaMessage): void {
    switch (message.type) {
      case 'chain':
        this.chains.set(message.id, message.chain_pem);
        return;
      case 'domain':
        this.entries.set(message.domain.name, { domain: message.domain, material: message.material });
        this.answers.delete(message.domain.name);
        this.list = undefined;
        this.summaries = undefined;
        break;
      case 'removed':
        this.entries.delete(message.name);
        this.hosts.delete(message.name);
        this.hostTokens.forget(message.name);
        this.answers.delete(message.name);
        this.list = undefined;
        this.summaries = undefined;
        break;
      case 'hosts':
        if (message.hosts.length === 0) this.hosts.delete(message.name);
        else this.hosts.set(message.name, { hosts: message.hosts, deployment: message.deployment });
        this.list = undefined;
        this.summaries = undefined;
        break;
      case 'retired':
        // Not a change of what the admin views show: listeners are not told.
        if (message.tokens.length === 0) this.retired.delete(message.name);
        else this.retired.set(message.name, message.tokens);
        return;
      case 'host-tokens':
        // The admin API reads them on request: listeners are not told.
        this.hostTokens.apply(message.name, message.tokens);
        return;
      case 'loaded':
        // Not a change: listeners (the panel's event stream) are not told.
        this.markLoaded();
        return;
      default:
        throw new Error(`unknown replica message ${JSON.stringify(message satisfies never)}`);
    }
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
    this.entries.set(domain.name, { domain, material: entry?.material ?? null });
    this.answers.delete(domain.name);
    this.list = undefined;
  }

  /** The domain `nameOrLabel` names: a full name under the base domain, or a label. */
  get(nameOrLabel: string): ReplicaEntry | undefined {
    const name = nameOrLabel.toLowerCase().replace(/\.$/, '');
    return this.entries.get(name) ?? this.entries.get(`${name}.${this.baseDomain}`);
  }

  /**
   * The entry `nameOrLabel` names when `token` is its token. An unknown domain and a wrong token are
   * refused alike, in the same time.
   */
  withToken(nameOrLabel: string, token: string): ReplicaEntry | undefined {
    const entry = this.get(nameOrLabel);
    let digest = noTokenDigest;
    if (entry !== undefined) {
      digest = this.tokenDigests.get(entry.domain) ?? secretDigest(entry.domain.token);
      this.tokenDigests.set(entry.domain, digest);
    }
    return matchesDigest(token, digest) && entry !== undefined ? entry : undefined;
  }

  /**
   * The entry `nameOrLabel` names and the host token issued under it that `token` is. Asked only after
   * withToken refused the token; an unknown domain takes the same lookup.
   */
  withHostToken(nameOrLabel: string, token: string): { entry: ReplicaEntry; hostToken: HostTokenRecord } | undefined {
    const entry = this.get(nameOrLabel);
    const hostToken = this.hostTokens.match(entry?.domain.name ?? '', token);
    return entry === undefined || hostToken === undefined ? undefined : { entry, hostToken };
  }

  /**
   * The retired token of `nameOrLabel` that `token` is (rotated away, or of a removed domain), or
   * undefined. Asked only after withToken refused the token.
   */
  retiredToken(nameOrLabel: string, token: string, now = Date.now()): RetiredToken | undefined {
    const name = nameOrLabel.toLowerCase().replace(/\.$/, '');
    const entries = this.retired.get(name) ?? this.retired.get(`${name}.${this.baseDomain}`) ?? [];
    return matchRetired(entries, token, now);
  }

  /** The entry's material with its chain, or null before its certificate is issued. */
  material(entry: ReplicaEntry): Material | null {
    const { material } = entry;
    if (material === null) return null;
    const chain = this.chains.get(material.chain);
    // The chain is published before the first domain that refers to it: missing, it is a bug.
    if (chain === undefined) throw new Error(`the replica has no chain ${material.chain} for ${entry.domain.name}`);
    return { cert_pem: material.cert_pem, chain_pem: chain, key_pem: material.key_pem };
  }

  /** The body of GET /api/cert for the entry (JSON, UTF-8), or null before its certificate is issued. */
  certificateBody(entry: ReplicaEntry): Buffer | null {
    const name = entry.domain.name;
    let answer = this.answers.get(name);
    if (answer !== undefined) {
      this.answers.delete(name);
      this.answers.set(name, answer);
      return answer;
    }
    const material = this.material(entry);
    if (material === null || entry.domain.expires_at === null) return null;
    const { key_pem, ...certificate } = material;
    // An own_key domain's answer carries no key (certhub holds none), and says whether certhub waits for the host's next CSR.
    const answered: CertificateResponse = entry.domain.own_key
      ? { ...certificate, expires_at: entry.domain.expires_at, csr_wanted: entry.domain.csr_wanted }
      : { ...certificate, key_pem, expires_at: entry.domain.expires_at };
    answer = Buffer.from(JSON.stringify(answered));
    this.answers.set(name, answer);
    if (this.answers.size > cachedAnswers) this.answers.delete(this.answers.keys().next().value ?? '');
    return answer;
  }

  /**
   * `{"domains": [...]}` by name, as the admin list and the panel's first event give it: made once per
   * change of the replica, not once per page opened (10,000 domains are 4 MB of JSON).
   */
  listJson(): string {
    return (this.list ??= JSON.stringify({
      domains: this.all().map((view): ListedDomain => ({ ...this.shown(view), deployment: this.deploymentOf(view.name) })),
    }));
  }

  /** The event stream's snapshot: every domain's summary, in name order. */
  summariesJson(): string {
    return (this.summaries ??= JSON.stringify({ domains: this.all().map((view) => summaryOf(view, this.deploymentOf(view.name))) }));
  }

  /** How many hosts report on the domain `name` (a full name) and how many are stale. */
  deploymentOf(name: string): Deployment {
    return this.hosts.get(name)?.deployment ?? noDeployment;
  }

  /** The hosts that report on the domain `name` (a full name), by name. */
  hostsOf(name: string): HostView[] {
    return this.hosts.get(name)?.hosts ?? [];
  }

  /** GET /api/admin/domains/<name>: the view, its deployment and its hosts. */
  detail(view: DomainView): DomainDetail {
    return { ...this.shown(view), deployment: this.deploymentOf(view.name), hosts: this.hostsOf(view.name) };
  }

  /** GET /api/admin/domains?deployment=stale: the domains with a stale host, or whose newest certificate is served nowhere. */
  staleDomains(): ListedDomain[] {
    return this.all()
      .filter((view) => {
        const deployment = this.deploymentOf(view.name);
        return deployment.state === 'stale' || deployment.unserved;
      })
      .map((view) => ({ ...this.shown(view), deployment: this.deploymentOf(view.name) }));
  }

  /** Every domain's deployment that has hosts, for /metrics. */
  deployments(): [name: string, hosts: HostView[]][] {
    return [...this.hosts].map(([name, { hosts }]) => [name, hosts]);
  }

  all(): DomainView[] {
    // Names are lower-case ASCII (IDNs in their xn-- form): code-unit order, without the cost of localeCompare.
    return [...this.entries.values()].map((entry) => entry.domain).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  onChange(listener: (message: ReplicaMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
