// PowerDNS Authoritative HTTP API (doc.powerdns.com/authoritative/http-api/zone.html): names
// with a trailing dot, TXT quoted, NOTIFY for Master and Producer zones. A challenge TXT value is added
// and removed on its own with EXTEND and PRUNE where the server takes them (powerdns-version.ts);
// elsewhere the RRset is replaced whole: read, append, REPLACE; REPLACE without it, or DELETE when none
// is left.
import { OutpostError } from '../../../../src/errors.js';
import { GroupCommit } from './group-commit.js';
import { excerpt } from './http.js';
import { isChangeRefusal, PowerDnsHttp } from './powerdns-http.js';
import { deletion, txtExtension, txtPruning, txtReplacement, type Rrset, type RrsetChange, type RrsetComment } from './powerdns-rrsets.js';
import { supportsExtendPrune } from './powerdns-version.js';
import {
  KeyedSerializer,
  addressRecordFor,
  assertInZone,
  canonicalName,
  foreignRecordsConflict,
  ownerMark,
  readableContent,
  quoteTxt,
  unquoteTxt,
  type DnsProvider,
  type DnsRecord,
  type DnsRecordType,
} from './provider.js';
import type { RecordType } from '../protocol.js';
import { certErrors } from '../../error-codes.js';

export interface PowerDnsSettings {
  /** Where the API is served, e.g. `http://127.0.0.1:8081` (the API paths are added). */
  serverUrl: string;
  apiToken: string;
  /** The zone, with or without trailing dot. */
  zone: string;
  /** Default `localhost`, the only server id PowerDNS Authoritative has. */
  serverId?: string;
  /** TTL of the records written; default 60. */
  ttl?: number;
  /** Deadline of one API request; default 10 s. */
  timeoutMs?: number;
}

/** What GET /servers/{server_id} says of the server, read once. */
interface ServerFacts {
  /** As reported (`4.7.3`); null when the answer had none. */
  version: string | null;
  extendsAndPrunes: boolean;
}

interface ZoneFacts {
  kind: string;
  /** Empty when the zone has none. */
  soaEditApi: string;
}

const addressTypes: readonly RecordType[] = ['A', 'AAAA', 'CNAME'];
// Shared by every provider of the thread, so that two of them on one zone (the split configuration
// can name the same zone twice) still take turns: TXT read-modify-writes per name, writes per zone.
const txtWrites = new KeyedSerializer();
/** Address changes read the RRsets first (whose are they?): those of one name take turns too. */
const addressWrites = new KeyedSerializer();
/** The comment that marks an RRset as certhub's (provider.ts, ownerMark); `account` is what is checked. */
const markComment: RrsetComment = { content: ownerMark, account: 'certhub' };
const zoneWriters = new Map<string, GroupCommit<RrsetChange[]>>();
const listedTypes: readonly string[] = [...addressTypes, 'TXT'];
/**
 * The zone kinds with secondaries to NOTIFY. The API's kinds are Native, Master, Slave, Producer and
 * Consumer (PowerDNS's OpenAPI schema, Zone.kind): "Primary" is never answered, a Producer (catalog
 * zone primary, 4.7+) is a primary too.
 */
const notifyingKinds: readonly string[] = ['Master', 'Producer'];

export class PowerDnsProvider implements DnsProvider {
  readonly kind = 'powerdns';
  private readonly zone: string;
  private readonly zoneUrl: string;
  private readonly http: PowerDnsHttp;
  private readonly ttl: number;
  private facts: Promise<ZoneFacts> | undefined;
  private readonly serverUrl: string;
  private server: Promise<ServerFacts> | undefined;

  constructor(private readonly settings: PowerDnsSettings) {
    this.zone = canonicalName(settings.zone);
    const base = settings.serverUrl.replace(/\/+$/, '');
    this.serverUrl = `${base}/api/v1/servers/${encodeURIComponent(settings.serverId ?? 'localhost')}`;
    this.zoneUrl = `${this.serverUrl}/zones/${encodeURIComponent(`${this.zone}.`)}`;
    this.ttl = settings.ttl ?? 60;
    this.http = new PowerDnsHttp({ serverUrl: settings.serverUrl, apiToken: settings.apiToken, zone: this.zone, timeoutMs: settings.timeoutMs ?? 10_000 });
  }

  zoneName(): Promise<string> {
    return Promise.resolve(this.zone);
  }

  async setAddress(name: string, target: string): Promise<RecordType> {
    const fqdn = this.nameInZone(name);
    const record = addressRecordFor(target);
    const content = record.type === 'CNAME' ? `${record.content}.` : record.content;
    await addressWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const existing = await this.addressRrsets(fqdn);
      const foreign = existing.filter((rrset) => !isOurs(rrset));
      if (foreign.length > 0) throw foreignRecordsConflict(fqdn, recordsOf(foreign));
      // One PATCH is applied atomically: the other types go and the new one comes in the same change,
      // which PowerDNS needs since a CNAME beside another type is refused. The RRset carries the mark.
      await this.patch([
        ...existing.filter((rrset) => rrset.type !== record.type).map((rrset) => deletion(fqdn, rrset.type as DnsRecordType)),
        { name: `${fqdn}.`, type: record.type, changetype: 'REPLACE', ttl: this.ttl, records: [{ content, disabled: false }], comments: [markComment] },
      ]);
    });
    return record.type;
  }

  async removeAddress(name: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    await addressWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const ours = (await this.addressRrsets(fqdn)).filter(isOurs);
      if (ours.length > 0) await this.patch(ours.map((rrset) => deletion(fqdn, rrset.type as DnsRecordType)));
    });
  }

  /** Adopting adds the mark to the RRset's comments; its records are written back as they were. */
  async claimAddress(name: string, adopt: boolean): Promise<void> {
    const fqdn = this.nameInZone(name);
    await addressWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const foreign = (await this.addressRrsets(fqdn)).filter((rrset) => !isOurs(rrset));
      if (foreign.length === 0) return;
      if (!adopt) throw foreignRecordsConflict(fqdn, recordsOf(foreign));
      await this.patch(
        foreign.map((rrset) => ({
          name: `${fqdn}.`,
          type: rrset.type as DnsRecordType,
          changetype: 'REPLACE',
          ttl: rrset.ttl,
          records: rrset.records.map(({ content, disabled }) => ({ content, disabled })),
          comments: [...(rrset.comments ?? []).map(({ content, account }) => ({ content, account })), markComment],
        })),
      );
    });
  }

  /** The A, AAAA and CNAME RRsets at `fqdn`, with their comments (the mark). */
  private async addressRrsets(fqdn: string): Promise<Rrset[]> {
    return (await this.rrsetsAt(fqdn)).filter((rrset) => (addressTypes as readonly string[]).includes(rrset.type));
  }

  // With EXTEND and PRUNE the server adds or removes the one value, and nothing else of the RRset is
  // sent: a value written meanwhile by someone else, or a record someone disabled, cannot be lost.
  // Otherwise a REPLACE writes every record of the RRset: the others are written back as they were
  // read, a disabled one still disabled (someone turned it off; certhub must not turn it back on).
  addTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    return txtWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      if (await this.extendsAndPrunes()) return this.patch([txtExtension(fqdn, value, this.ttl)]);
      const records = await this.txtRecords(fqdn);
      if (records.some((record) => !record.disabled && unquoteTxt(record.content) === value)) return;
      const others = records.filter((record) => unquoteTxt(record.content) !== value);
      await this.patch([txtReplacement(fqdn, [...others, { content: quoteTxt(value), disabled: false }], this.ttl)]);
    });
  }

  removeTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    return txtWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      if (await this.extendsAndPrunes()) return this.patch([txtPruning(fqdn, value, this.ttl)]);
      const records = await this.txtRecords(fqdn);
      const kept = records.filter((record) => record.disabled || unquoteTxt(record.content) !== value);
      if (kept.length === records.length) return;
      await this.patch([kept.length === 0 ? deletion(fqdn, 'TXT') : txtReplacement(fqdn, kept, this.ttl)]);
    });
  }

  async list(name: string): Promise<DnsRecord[]> {
    const fqdn = this.nameInZone(name);
    return (await this.rrsetsAt(fqdn)).flatMap((rrset) =>
      rrset.records
        .filter((record) => !record.disabled)
        .map((record) => ({ name: fqdn, type: rrset.type as DnsRecordType, content: readableContent(rrset.type, record.content), ttl: rrset.ttl })),
    );
  }

  private nameInZone(name: string): string {
    const fqdn = canonicalName(name);
    assertInZone(this.kind, fqdn, this.zone);
    return fqdn;
  }

  /**
   * Every TXT record at `fqdn`, disabled ones included, read from the whole zone: the `rrset_name`
   * filter leaves disabled records out (PowerDNS 4.7.3 here), and a REPLACE built from that read would
   * delete them.
   */
  private async txtRecords(fqdn: string): Promise<Rrset['records']> {
    return (await this.rrsetsAt(fqdn, 'whole zone')).find((rrset) => rrset.type === 'TXT')?.records ?? [];
  }

  /** The RRsets at `fqdn` of the types we manage. `rrset_name` (PowerDNS 4.7+) narrows the answer; older servers send the whole zone, filtered here. */
  private async rrsetsAt(fqdn: string, read: 'filtered' | 'whole zone' = 'filtered'): Promise<Rrset[]> {
    const query = read === 'filtered' ? `?rrset_name=${encodeURIComponent(`${fqdn}.`)}` : '';
    const zone = await this.http.read<unknown>(`${this.zoneUrl}${query}`);
    // PowerDNS lists a zone's RRsets in every answer to this read, an empty list when there are none.
    const rrsets = typeof zone === 'object' && zone !== null ? (zone as { rrsets?: unknown }).rrsets : undefined;
    // Read, not trusted: an answer of another shape is the provider's error, not a TypeError further
    // on, nor a zone read as empty (a removal that removes nothing, a TXT written over the others).
    if (!Array.isArray(rrsets) || !rrsets.every(isRrset))
      throw new OutpostError(certErrors.ERR_DNS_PROVIDER, `powerdns: the zone's answer is not a list of RRsets: ${excerpt(JSON.stringify(zone))}`);
    return rrsets.filter((rrset) => rrset.name.toLowerCase() === `${fqdn}.` && listedTypes.includes(rrset.type));
  }

  /** Writes one change (its RRsets applied together), batched with the changes other callers make meanwhile. */
  private patch(rrsets: RrsetChange[]): Promise<void> {
    const key = `${this.zoneUrl} ${this.settings.apiToken}`;
    let writer = zoneWriters.get(key);
    if (writer === undefined) {
      writer = new GroupCommit((changes) => this.writeChanges(changes.flat()), isChangeRefusal);
      zoneWriters.set(key, writer);
    }
    return writer.submit(rrsets);
  }

  private async writeChanges(rrsets: RrsetChange[]): Promise<void> {
    await this.http.request(this.zoneUrl, 'PATCH', 204, { rrsets });
    if (notifyingKinds.includes((await this.zoneFacts()).kind)) {
      // Secondaries learn of the change (and fetch it) only when told; Native zones replicate otherwise.
      await this.http.request(`${this.zoneUrl}/notify`, 'PUT', 200);
    }
  }

  /**
   * What certhub should know of the zone before relying on it: a zone with secondaries (Master,
   * Producer) whose `soa_edit_api` is empty keeps its SOA serial on API changes, so its secondaries
   * never fetch a challenge and propagation times out. The dns actor logs these at start.
   */
  async warnings(): Promise<string[]> {
    const facts = await this.zoneFacts();
    if (!notifyingKinds.includes(facts.kind) || facts.soaEditApi !== '') return [];
    return [
      `powerdns: zone ${this.zone}. is a ${facts.kind} zone without soa_edit_api: its serial does not change on API edits, so its secondaries never see a challenge record and propagation will time out; set it (pdnsutil set-meta ${this.zone} SOA-EDIT-API DEFAULT)`,
    ];
  }

  /** How challenge values are written here, said once at start (the dns actor logs it). */
  async notes(): Promise<string[]> {
    const { version, extendsAndPrunes } = await this.serverFacts();
    const server = `powerdns: server ${version ?? '(version not reported)'} at ${this.settings.serverUrl}`;
    if (extendsAndPrunes) return [`${server}: challenge TXT values are added and removed one by one (EXTEND, PRUNE)`];
    return [`${server}: challenge TXT values are written by read, modify, REPLACE (EXTEND and PRUNE come with 4.9.12 and 5.0.2)`];
  }

  /** Whether TXT values go by EXTEND/PRUNE; a server that cannot be asked now gets REPLACE, and is asked again next time. */
  private async extendsAndPrunes(): Promise<boolean> {
    try {
      return (await this.serverFacts()).extendsAndPrunes;
    } catch {
      return false;
    }
  }

  private serverFacts(): Promise<ServerFacts> {
    this.server ??= this.http.read<{ version?: unknown }>(this.serverUrl).then(({ version }) => {
      if (typeof version !== 'string') return { version: null, extendsAndPrunes: false };
      return { version, extendsAndPrunes: supportsExtendPrune(version) };
    });
    this.server.catch(() => (this.server = undefined));
    return this.server;
  }

  private zoneFacts(): Promise<ZoneFacts> {
    this.facts ??= this.http.read<{ kind?: unknown; soa_edit_api?: unknown }>(`${this.zoneUrl}?rrsets=false`).then(({ kind, soa_edit_api: soaEditApi }) => {
      return { kind: typeof kind === 'string' ? kind : 'Native', soaEditApi: typeof soaEditApi === 'string' ? soaEditApi : '' };
    });
    // A failure is not remembered: the next change asks again.
    this.facts.catch(() => (this.facts = undefined));
    return this.facts;
  }
}

/** Whether `value` has the fields of an RRset that are read here (the API's `RRSet` object). */
function isRrset(value: unknown): value is Rrset {
  const rrset = value as Partial<Rrset> | null;
  const strings = (...fields: unknown[]) => fields.every((field) => typeof field === 'string');
  return (
    typeof rrset === 'object' &&
    rrset !== null &&
    strings(rrset.name, rrset.type) &&
    typeof rrset.ttl === 'number' &&
    Array.isArray(rrset.records) &&
    rrset.records.every(
      (record: unknown) =>
        typeof record === 'object' &&
        record !== null &&
        strings((record as Rrset['records'][number]).content) &&
        typeof (record as Rrset['records'][number]).disabled === 'boolean',
    ) &&
    (rrset.comments === undefined ||
      (Array.isArray(rrset.comments) && rrset.comments.every((comment: unknown) => typeof comment === 'object' && comment !== null)))
  );
}

function isOurs(rrset: Rrset): boolean {
  return (rrset.comments ?? []).some((comment) => comment.account === markComment.account);
}

function recordsOf(rrsets: readonly Rrset[]): { type: string; content: string }[] {
  return rrsets.flatMap((rrset) => rrset.records.map((record) => ({ type: rrset.type, content: record.content })));
}
