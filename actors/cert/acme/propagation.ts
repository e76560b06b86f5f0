// The DNS-01 checks made at the zone's authoritative nameservers, never through a recursive resolver
// (whose negative caching would hide a fresh record; reference "DNS-01 correctness" 2-3): where a
// challenge TXT must go (a CNAME on `_acme-challenge.<name>` is followed), and waiting until every
// authoritative server answers the value. The ACME order calls it in the acme actor's thread, as a
// plain function, between writing the TXT (through the dns actor) and asking the CA to validate.
import { Resolver, getServers, lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { OutpostError } from '../../../src/errors.js';
import { describeNameserver, queryNameserver, txtValue, type DnsReply, type Nameserver } from './dns-query.js';
import { certErrors } from '../error-codes.js';

export interface AuthoritativeDnsOptions {
  /** `host:port` (or `[v6]:port`, or a host alone for port 53) of the servers to ask; default the zone's NS records, resolved. */
  nameservers?: readonly string[];
  /** Deadline of one question to one server; default 2 s. */
  queryTimeoutMs?: number;
  /** `host:port` of the recursive resolvers asked which zone encloses a name; default the system's (/etc/resolv.conf). */
  resolvers?: readonly string[];
}

export interface PropagationWait {
  /** Gives up with ERR_DNS_PROPAGATION after this long. */
  timeoutMs: number;
  /** Pause between two rounds of questions; default 500 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** How long the NS records found for a zone are reused. */
const zoneNameserversTtlMs = 60 * 60 * 1000;
/** Longest CNAME chain followed from `_acme-challenge.<name>`. */
const maxCnameHops = 8;
/** Passes over a name's nameservers before a CNAME question counts as unanswered. */
const cnamePasses = 3;
const noAuthoritativeAnswer = Symbol('no authoritative answer');

export class AuthoritativeDns {
  private readonly configured: readonly { host: string; port: number }[] | undefined;
  private readonly queryTimeoutMs: number;
  private readonly zoneServers = new Map<string, { servers: Promise<NamedNameserver[]>; until: number }>();
  private readonly system = new Resolver();
  private readonly resolvers: readonly Nameserver[];

  constructor(options: AuthoritativeDnsOptions = {}) {
    this.configured = options.nameservers === undefined || options.nameservers.length === 0 ? undefined : options.nameservers.map(parseNameserver);
    this.queryTimeoutMs = options.queryTimeoutMs ?? 2000;
    this.resolvers = (options.resolvers !== undefined && options.resolvers.length > 0 ? options.resolvers : getServers()).map(parseNameserver);
    this.system.setServers(this.resolvers.map(describeNameserver));
  }

  /**
   * The servers that answer for `name`, each by its name with every address it resolves to: the
   * configured ones, or the NS of the closest enclosing zone.
   */
  async nameserversFor(name: string): Promise<NamedNameserver[]> {
    if (this.configured !== undefined) return Promise.all(this.configured.map((server) => resolveNamed(server, describeNameserver(server))));
    const zone = await this.zoneOf(name);
    const cached = this.zoneServers.get(zone.apex);
    if (cached !== undefined && cached.until > Date.now()) return cached.servers;
    const servers = Promise.all(zone.nameservers.map((host) => resolveNamed({ host, port: 53 }, host)));
    this.zoneServers.set(zone.apex, { servers, until: Date.now() + zoneNameserversTtlMs });
    servers.catch(() => this.zoneServers.delete(zone.apex));
    return servers;
  }

  /**
   * The name a challenge TXT for `name` must be written at: `_acme-challenge.<name>`, or where a CNAME
   * there points (followed hop by hop, each asked of the servers authoritative for it).
   */
  async challengeName(name: string): Promise<string> {
    const seen = new Set<string>();
    let current = `_acme-challenge.${name.replace(/\.$/, '').toLowerCase()}`;
    for (let hop = 0; hop <= maxCnameHops; hop += 1) {
      if (seen.has(current)) throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `the CNAME chain from _acme-challenge.${name} loops at ${current}`);
      seen.add(current);
      const target = await this.cnameAt(current);
      if (target === undefined) return current;
      current = target;
    }
    throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `the CNAME chain from _acme-challenge.${name} is longer than ${maxCnameHops} hops`);
  }

  /**
   * Resolves once each authoritative nameserver, by name, answers `value` among the TXT values of
   * `name` over any one of its addresses. An address of a family the host cannot reach (no IPv6 route:
   * Docker's default) is skipped; only a name none of whose addresses answer is waited on.
   */
  async waitForTxt(name: string, value: string, wait: PropagationWait): Promise<void> {
    const deadline = Date.now() + wait.timeoutMs;
    const intervalMs = wait.intervalMs ?? 500;
    const servers = await this.nameserversFor(name);
    if (servers.length === 0) throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `no authoritative nameserver found for ${name}`);
    const lastSeen = new Map<NamedNameserver, string>(servers.map((server) => [server, 'not asked yet']));
    for (;;) {
      wait.signal?.throwIfAborted();
      const pending = [...lastSeen.keys()];
      const observations = await Promise.all(pending.map((server) => this.observeNamed(server, name, value)));
      pending.forEach((server, index) => {
        const observation = observations[index]!;
        if (observation === 'present') lastSeen.delete(server);
        else lastSeen.set(server, observation);
      });
      if (lastSeen.size === 0) return;
      if (Date.now() + intervalMs > deadline) {
        const missing = [...lastSeen].map(([server, seen]) => `${server.name} (${seen})`).join(', ');
        throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `TXT ${name} = "${value}" was not answered within ${wait.timeoutMs} ms by ${missing}`);
      }
      await delay(intervalMs, undefined, { signal: wait.signal });
    }
  }

  /**
   * `present` as soon as one address of `server` answers the value; otherwise what each address said.
   * An address found unreachable is dropped from `server` while another remains, so later rounds do
   * not ask it again.
   */
  private async observeNamed(server: NamedNameserver, name: string, value: string): Promise<string> {
    const seen = new Map<Nameserver, string>();
    const present = await new Promise<boolean>((resolve) => {
      let left = server.addresses.length;
      if (left === 0) resolve(false);
      for (const address of server.addresses) {
        void this.observeTxt(address, name, value).then((observation) => {
          seen.set(address, observation);
          if (observation === 'present') resolve(true);
          left -= 1;
          if (left === 0) resolve(false);
        });
      }
    });
    if (present) return 'present';
    const reachable = server.addresses.filter((address) => !seen.get(address)?.startsWith(unreachablePrefix));
    if (reachable.length > 0) server.addresses = reachable;
    const [only] = server.addresses;
    if (seen.size === 1 && only !== undefined && describeNameserver(only) === server.name) return seen.get(only)!;
    return [...seen].map(([address, observation]) => `${describeNameserver(address)}: ${observation}`).join('; ');
  }

  private async observeTxt(server: Nameserver, name: string, value: string): Promise<string> {
    try {
      const reply = await queryNameserver(server, name, 'TXT', this.queryTimeoutMs);
      if (!reply.authoritative) return `not authoritative, ${reply.rcode}`;
      if (reply.rcode !== 'NOERROR') return reply.rcode;
      const values = reply.answers
        .filter((answer) => answer.name.toLowerCase() === name.toLowerCase())
        .map(txtValue)
        .filter((text) => text !== undefined);
      if (values.includes(value)) return 'present';
      return values.length === 0 ? 'no TXT value yet' : `other values only: ${values.map((text) => JSON.stringify(text)).join(' ')}`;
    } catch (error) {
      if (isUnreachable(error)) return `${unreachablePrefix} (${(error as { code: string }).code})`;
      return `no answer: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /**
   * The CNAME target at `name`, asked of its servers until one answers with authority (AA set,
   * NOERROR or NXDOMAIN). A REFUSED, SERVFAIL or lame (non-authoritative) reply says nothing about the
   * name: it is not read as "no CNAME" (the TXT would go to the wrong name), and when no server answers
   * with authority the order fails and is retried.
   */
  private async cnameAt(name: string): Promise<string | undefined> {
    const servers = (await this.nameserversFor(name)).flatMap((named) => named.addresses);
    let failures: string[] = [];
    // Each server is asked up to three times, as a stub resolver retransmits: one UDP answer lost or
    // late (a busy server) must not fail the order, which would then wait out its backoff.
    for (let pass = 0; pass < cnamePasses; pass += 1) {
      if (pass > 0) await delay(200 * pass);
      failures = [];
      const answer = await this.askCname(servers, name, failures);
      if (answer !== noAuthoritativeAnswer) return answer;
    }
    throw new OutpostError(
      certErrors.ERR_DNS_PROPAGATION,
      `no nameserver answered with authority whether ${name} has a CNAME: ${failures.join('; ') || 'none found'}`,
    );
  }

  /** One pass over `servers`: the CNAME target, undefined for none, or noAuthoritativeAnswer with each server's failure in `failures`. */
  private async askCname(servers: readonly Nameserver[], name: string, failures: string[]): Promise<string | undefined | typeof noAuthoritativeAnswer> {
    for (const server of servers) {
      try {
        const reply = await queryNameserver(server, name, 'CNAME', this.queryTimeoutMs);
        if (!reply.authoritative || !['NOERROR', 'NXDOMAIN'].includes(reply.rcode)) {
          failures.push(`${describeNameserver(server)}: ${reply.authoritative ? '' : 'not authoritative, '}${reply.rcode}`);
          continue;
        }
        const cname = reply.answers.find((answer) => answer.type === 'CNAME' && answer.name.toLowerCase() === name.toLowerCase());
        return cname?.type === 'CNAME' ? cname.data.replace(/\.$/, '').toLowerCase() : undefined;
      } catch (error) {
        failures.push(`${describeNameserver(server)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return noAuthoritativeAnswer;
  }

  /**
   * The zone `name` is in, with its NS records. Its apex comes from an SOA: the SOA
   * answered for `name`, or the one in the authority section of a reply without it, names the zone.
   * An NS question is not enough: for a name that is a CNAME, a resolver follows it and answers the NS
   * of the zone the CNAME points into, which would make the alias look like an apex of that other zone.
   */
  async zoneOf(name: string): Promise<{ apex: string; nameservers: string[] }> {
    const apex = await this.apexOf(name.replace(/\.$/, '').toLowerCase());
    const nameservers = await this.system.resolveNs(apex).catch((error: unknown) => {
      throw new OutpostError(
        certErrors.ERR_DNS_PROPAGATION,
        `the NS records of ${apex} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    if (nameservers.length === 0) throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `the zone ${apex} has no NS records; set propagation.nameservers`);
    return { apex, nameservers };
  }

  /** Walks up from `name` past aliases (a CNAME's SOA is its target's) to the SOA that encloses it. */
  private async apexOf(name: string): Promise<string> {
    const labels = name.split('.');
    for (let start = 0; start < labels.length; start += 1) {
      const candidate = labels.slice(start).join('.');
      const reply = await this.askResolvers(candidate, 'SOA');
      if (reply.answers.some((answer) => answer.type === 'CNAME' && answer.name.toLowerCase() === candidate)) continue;
      const soa = [...reply.answers, ...reply.authorities].find((record) => record.type === 'SOA');
      const owner = soa?.name.replace(/\.$/, '').toLowerCase();
      if (owner !== undefined && (owner === candidate || candidate.endsWith(`.${owner}`))) return owner;
    }
    throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `no zone with an SOA encloses ${name}; set propagation.nameservers`);
  }

  /** The first resolver's reply that says something about the name (NOERROR or NXDOMAIN); none is a failure to retry. */
  private async askResolvers(name: string, type: 'SOA'): Promise<DnsReply> {
    const failures: string[] = [];
    for (const resolver of this.resolvers) {
      try {
        const reply = await queryNameserver(resolver, name, type, this.queryTimeoutMs, true);
        if (reply.rcode === 'NOERROR' || reply.rcode === 'NXDOMAIN') return reply;
        failures.push(`${describeNameserver(resolver)}: ${reply.rcode}`);
      } catch (error) {
        failures.push(`${describeNameserver(resolver)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    throw new OutpostError(certErrors.ERR_DNS_PROPAGATION, `no resolver answered the ${type} of ${name}: ${failures.join('; ') || 'none configured'}`);
  }
}

/** `host:port`, `[v6]:port`, or a host alone (port 53). Throws a message fit for a config error. */
export function parseNameserver(text: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, port] =
    bracketed !== null ? [bracketed[1]!, bracketed[2]] : isIP(text) === 6 ? [text, undefined] : (text.split(/:(?=\d+$)/) as [string, string?]);
  const portNumber = port === undefined ? 53 : Number(port);
  if (host === '' || !/^[a-z0-9.:_-]+$/i.test(host) || !Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65_535) {
    throw new Error(`${JSON.stringify(text)} is not host:port`);
  }
  return { host, port: portNumber };
}

/** A nameserver by the name it is known by, with every address (A and AAAA) that name has. */
export interface NamedNameserver {
  /** The host name (with `:port` when configured so), or the address when it was given as one. */
  readonly name: string;
  addresses: Nameserver[];
}

async function resolveNamed(server: { host: string; port: number }, name: string): Promise<NamedNameserver> {
  if (isIP(server.host) !== 0) return { name, addresses: [server] };
  const addresses = await lookup(server.host, { all: true });
  return { name, addresses: addresses.map(({ address }) => ({ host: address, port: server.port })) };
}

const unreachablePrefix = 'unreachable';
/** Failures that say the host has no way to the address (no route for that family), as opposed to a server that is slow or down. */
const unreachableCodes: readonly string[] = ['ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT'];

function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && unreachableCodes.includes(code);
}
