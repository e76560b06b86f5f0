// PowerDNS Authoritative HTTP API (doc.powerdns.com/authoritative/http-api/zone.html): names
// with a trailing dot, TXT quoted, an RRset replaced whole (so a TXT value is added by read, append,
// REPLACE and removed by REPLACE without it, or DELETE when none is left), NOTIFY for Master zones.
import { OutpostError } from '../../../../src/errors.js';
import { GroupCommit } from './group-commit.js';
import { excerpt, providerFetch, type ProviderRequest, type ProviderResponse } from './http.js';
import {
  KeyedSerializer,
  addressRecordFor,
  assertInZone,
  canonicalName,
  foreignRecordsConflict,
  ownerMark,
  quoteTxt,
  readableContent,
  unquoteTxt,
  type DnsProvider,
  type DnsRecord,
  type DnsRecordType,
} from './provider.js';
import type { RecordType } from '../../domains/names.js';

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

interface RrsetChange {
  name: string;
  type: DnsRecordType;
  changetype: 'REPLACE' | 'DELETE';
  ttl?: number;
  records?: { content: string; disabled: boolean }[];
  comments?: RrsetComment[];
}

/** A comment on an RRset (PowerDNS keeps comments per RRset, not per record). */
interface RrsetComment {
  content: string;
  account: string;
}

interface ZoneFacts {
  kind: string;
  /** Empty when the zone has none. */
  soaEditApi: string;
}

interface Rrset {
  name: string;
  type: string;
  ttl: number;
  records: { content: string; disabled: boolean }[];
  comments?: RrsetComment[];
}

/** A failure answered by the API, with its HTTP status (422: the change itself was refused). */
class PowerDnsRefusal extends OutpostError {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super('ERR_DNS_PROVIDER', message);
  }
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
  private readonly headers: Record<string, string>;
  private readonly ttl: number;
  private readonly timeoutMs: number;
  private facts: Promise<ZoneFacts> | undefined;

  constructor(private readonly settings: PowerDnsSettings) {
    this.zone = canonicalName(settings.zone);
    const base = settings.serverUrl.replace(/\/+$/, '');
    this.zoneUrl = `${base}/api/v1/servers/${encodeURIComponent(settings.serverId ?? 'localhost')}/zones/${encodeURIComponent(`${this.zone}.`)}`;
    this.headers = { 'X-API-Key': settings.apiToken };
    this.ttl = settings.ttl ?? 60;
    this.timeoutMs = settings.timeoutMs ?? 10_000;
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

  // A REPLACE writes every record of the RRset: the others are written back as they were read, a
  // disabled one still disabled (someone turned it off; certhub must not turn it back on).
  addTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    return txtWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const records = await this.txtRecords(fqdn);
      if (records.some((record) => !record.disabled && unquoteTxt(record.content) === value)) return;
      const others = records.filter((record) => unquoteTxt(record.content) !== value);
      await this.patch([txtReplacement(fqdn, [...others, { content: quoteTxt(value), disabled: false }], this.ttl)]);
    });
  }

  removeTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    return txtWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
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
    const response = await this.request(`${this.zoneUrl}${query}`, { method: 'GET', headers: this.headers }, 200);
    const zone = this.parse<unknown>(response);
    const rrsets = typeof zone === 'object' && zone !== null ? ((zone as { rrsets?: unknown }).rrsets ?? []) : undefined;
    // Read, not trusted: an answer of another shape is the provider's error, not a TypeError further on.
    if (!Array.isArray(rrsets) || !rrsets.every(isRrset)) throw new OutpostError('ERR_DNS_PROVIDER', `powerdns: the zone's answer is not a list of RRsets: ${excerpt(response.body)}`);
    return rrsets.filter((rrset) => rrset.name.toLowerCase() === `${fqdn}.` && listedTypes.includes(rrset.type));
  }

  /** Writes one change (its RRsets applied together), batched with the changes other callers make meanwhile. */
  private patch(rrsets: RrsetChange[]): Promise<void> {
    const key = `${this.zoneUrl} ${this.settings.apiToken}`;
    let writer = zoneWriters.get(key);
    if (writer === undefined) {
      writer = new GroupCommit((changes) => this.writeChanges(changes.flat()), (error) => error instanceof PowerDnsRefusal && error.httpStatus === 422);
      zoneWriters.set(key, writer);
    }
    return writer.submit(rrsets);
  }

  private async writeChanges(rrsets: RrsetChange[]): Promise<void> {
    await this.request(this.zoneUrl, { method: 'PATCH', headers: this.headers, json: { rrsets } }, 204);
    if (notifyingKinds.includes((await this.zoneFacts()).kind)) {
      // Secondaries learn of the change (and fetch it) only when told; Native zones replicate otherwise.
      await this.request(`${this.zoneUrl}/notify`, { method: 'PUT', headers: this.headers }, 200);
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

  private zoneFacts(): Promise<ZoneFacts> {
    this.facts ??= this.request(`${this.zoneUrl}?rrsets=false`, { method: 'GET', headers: this.headers }, 200).then((response) => {
      const { kind, soa_edit_api: soaEditApi } = this.parse<{ kind?: unknown; soa_edit_api?: unknown }>(response);
      return { kind: typeof kind === 'string' ? kind : 'Native', soaEditApi: typeof soaEditApi === 'string' ? soaEditApi : '' };
    });
    // A failure is not remembered: the next change asks again.
    this.facts.catch(() => (this.facts = undefined));
    return this.facts;
  }

  private async request(url: string, request: ProviderRequest, expected: number): Promise<ProviderResponse> {
    const response = await providerFetch(this.kind, url, request, this.timeoutMs);
    if (response.status === expected) return response;
    throw new PowerDnsRefusal(this.failure(response), response.status);
  }

  private failure(response: ProviderResponse): string {
    const status = response.status;
    const detail = errorText(response.body);
    if (status === 401 || status === 403) return `powerdns: the API refused the key (HTTP ${status}): check api_token`;
    if (status === 404) return `powerdns: zone ${this.zone}. not found at ${this.settings.serverUrl} (HTTP 404): check zone and server_url`;
    if (status >= 500) return `powerdns: server error (HTTP ${status}): ${detail}`;
    return `powerdns: the change was refused (HTTP ${status}): ${detail}`;
  }

  private parse<T>(response: ProviderResponse): T {
    try {
      return JSON.parse(response.body) as T;
    } catch {
      throw new OutpostError('ERR_DNS_PROVIDER', `powerdns: the answer is not JSON: ${excerpt(response.body)}`);
    }
  }
}

/** Whether `value` has the fields of an RRset that are read here (the API's `RRSet` object). */
function isRrset(value: unknown): value is Rrset {
  const rrset = value as Partial<Rrset> | null;
  const strings = (...fields: unknown[]) => fields.every((field) => typeof field === 'string');
  return (
    typeof rrset === 'object' && rrset !== null && strings(rrset.name, rrset.type) && typeof rrset.ttl === 'number' &&
    Array.isArray(rrset.records) && rrset.records.every((record: unknown) => typeof record === 'object' && record !== null && strings((record as Rrset['records'][number]).content) && typeof (record as Rrset['records'][number]).disabled === 'boolean') &&
    (rrset.comments === undefined || (Array.isArray(rrset.comments) && rrset.comments.every((comment: unknown) => typeof comment === 'object' && comment !== null)))
  );
}

function isOurs(rrset: Rrset): boolean {
  return (rrset.comments ?? []).some((comment) => comment.account === markComment.account);
}

function recordsOf(rrsets: readonly Rrset[]): { type: string; content: string }[] {
  return rrsets.flatMap((rrset) => rrset.records.map((record) => ({ type: rrset.type, content: record.content })));
}

function deletion(fqdn: string, type: DnsRecordType): RrsetChange {
  return { name: `${fqdn}.`, type, changetype: 'DELETE' };
}

function txtReplacement(fqdn: string, records: Rrset['records'], ttl: number): RrsetChange {
  return { name: `${fqdn}.`, type: 'TXT', changetype: 'REPLACE', ttl, records: records.map(({ content, disabled }) => ({ content, disabled })) };
}

/** PowerDNS explains a failure in `{"error": "..."}`; some answers (404) are plain text. */
function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: quoted as it is.
  }
  return excerpt(body);
}
