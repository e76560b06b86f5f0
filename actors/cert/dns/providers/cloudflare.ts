// Cloudflare API v4 (developers.cloudflare.com/api, dns.records): bearer token, lists
// filtered by name and walked page by page, one record per value (so TXT values coexist), quotes
// normalised when comparing TXT, 81057/81058 (already there) taken as success when the content is
// ours, address changes made in one batch request (deletes before posts, so no A/CNAME conflict).
import { OutpostError } from '../../../../src/errors.js';
import { retryAfterMs } from '../../../../src/http/retry-after.js';
import { excerpt, providerFetch, type ProviderRequest } from './http.js';
import {
  KeyedConcurrency,
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
import type { RecordType } from '../protocol.js';
import { certErrors } from '../../error-codes.js';

export const cloudflareApiUrl = 'https://api.cloudflare.com/client/v4';

export interface CloudflareSettings {
  apiToken: string;
  zoneId: string;
  /** Default the public API; tests point it at their double. */
  apiUrl?: string;
  /** TTL of the records written (1 = automatic, else at least 60); default 120. */
  ttl?: number;
  /** Deadline of one API request; default 10 s. */
  timeoutMs?: number;
}

interface CloudflareRecord {
  id: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  comment?: string | null;
}

interface Envelope<T> {
  success?: boolean;
  errors?: { code?: number; message?: string; error_chain?: { code?: number; message?: string }[] }[];
  result?: T;
  result_info?: { page?: number; total_pages?: number };
}

/** A refusal from the API with its error codes, so callers can recognise 81057 and friends. */
class CloudflareRefusal extends OutpostError {
  constructor(
    message: string,
    readonly codes: readonly number[],
    retryAfterMs?: number,
  ) {
    // The Retry-After of a 429 travels with the error to the domain's next attempt (actors/cert/domains/backoff.ts).
    super(certErrors.ERR_DNS_PROVIDER, message, { retryAfterMs });
  }
}

const addressTypes: readonly string[] = ['A', 'AAAA', 'CNAME'];
const listedTypes: readonly string[] = [...addressTypes, 'TXT'];
const alreadyExists = [81057, 81058];
/** Codes Cloudflare answers for a missing, malformed or invalid token. */
const authCodes = [6003, 6102, 6103, 6111, 9103, 9106, 9109, 10000, 10001];
/** Changes to one name take turns, across every provider of the thread (two may share a zone). */
const nameWrites = new KeyedSerializer();
/**
 * Requests to one zone in flight at once, across every provider of the thread. Cloudflare counts
 * concurrent requests against its rate limit ("Rate limits" in its API docs); a certhub adding many
 * domains at once sends them four at a time.
 */
const zoneRequests = new KeyedConcurrency(4);
/** per_page asked for; the API may answer with fewer per page, so total_pages is always walked. */
const pageSize = 100;

export class CloudflareProvider implements DnsProvider {
  readonly kind = 'cloudflare';
  private readonly zoneUrl: string;
  private readonly headers: Record<string, string>;
  private readonly ttl: number;
  private readonly timeoutMs: number;
  private zone: Promise<string> | undefined;

  constructor(private readonly settings: CloudflareSettings) {
    this.zoneUrl = `${(settings.apiUrl ?? cloudflareApiUrl).replace(/\/+$/, '')}/zones/${encodeURIComponent(settings.zoneId)}`;
    this.headers = { Authorization: `Bearer ${settings.apiToken}` };
    this.ttl = settings.ttl ?? 120;
    this.timeoutMs = settings.timeoutMs ?? 10_000;
  }

  zoneName(): Promise<string> {
    this.zone ??= this.call<{ name?: unknown }>({ method: 'GET', headers: this.headers }, '').then(({ result }) => {
      if (typeof result?.name !== 'string')
        throw new OutpostError(certErrors.ERR_DNS_PROVIDER, `cloudflare: zone ${this.settings.zoneId} has no name in the answer`);
      return canonicalName(result.name);
    });
    // A failure is not remembered: the next call asks again.
    this.zone.catch(() => (this.zone = undefined));
    return this.zone;
  }

  /**
   * One batch request (deletes, then patches, then posts, in one transaction): a change of target never
   * leaves a moment without a record, which resolvers could cache as NXDOMAIN. The record kept is
   * PATCHed, so its comment and tags stay (a PUT would drop them).
   */
  async setAddress(name: string, target: string): Promise<RecordType> {
    const fqdn = await this.nameInZone(name);
    const wanted = addressRecordFor(target);
    await nameWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const existing = await this.addressRecords(fqdn);
      const foreign = existing.filter((record) => !isOurs(record));
      if (foreign.length > 0) throw foreignRecordsConflict(fqdn, foreign);
      const sameType = existing.filter((record) => record.type === wanted.type);
      const keep = sameType.find((record) => sameContent(wanted.type, record.content, wanted.content)) ?? sameType[0];
      const deletes = existing.filter((record) => record !== keep).map((record) => ({ id: record.id }));
      const fields = { content: wanted.content, ttl: this.ttl, proxied: false };
      const patches = keep !== undefined && !sameContent(wanted.type, keep.content, wanted.content) ? [{ id: keep.id, ...fields }] : [];
      const posts = keep === undefined ? [{ type: wanted.type, name: fqdn, ...fields, comment: ownerMark }] : [];
      if (deletes.length + patches.length + posts.length === 0) return;
      await this.call({ method: 'POST', headers: this.headers, json: { deletes, patches, posts } }, '/dns_records/batch');
    });
    return wanted.type;
  }

  async removeAddress(name: string): Promise<void> {
    const fqdn = await this.nameInZone(name);
    await nameWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const deletes = (await this.addressRecords(fqdn)).filter(isOurs).map((record) => ({ id: record.id }));
      if (deletes.length > 0) await this.call({ method: 'POST', headers: this.headers, json: { deletes } }, '/dns_records/batch');
    });
  }

  /** Adopting writes the mark in front of the record's comment (PATCH, so its tags stay), in one batch. */
  async claimAddress(name: string, adopt: boolean): Promise<void> {
    const fqdn = await this.nameInZone(name);
    await nameWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      const foreign = (await this.addressRecords(fqdn)).filter((record) => !isOurs(record));
      if (foreign.length === 0) return;
      if (!adopt) throw foreignRecordsConflict(fqdn, foreign);
      const patches = foreign.map((record) => ({ id: record.id, comment: record.comment ? `${ownerMark}; ${record.comment}` : ownerMark }));
      await this.call({ method: 'POST', headers: this.headers, json: { patches } }, '/dns_records/batch');
    });
  }

  async addTxt(name: string, value: string): Promise<void> {
    const fqdn = await this.nameInZone(name);
    await nameWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      if (await this.hasTxt(fqdn, value)) return;
      try {
        await this.call({ method: 'POST', headers: this.headers, json: { type: 'TXT', name: fqdn, content: quoteTxt(value), ttl: this.ttl } }, '/dns_records');
      } catch (error) {
        // Already there (a retry after a lost answer): success when the value there is ours.
        if (!(error instanceof CloudflareRefusal && error.codes.some((code) => alreadyExists.includes(code)) && (await this.hasTxt(fqdn, value)))) throw error;
      }
    });
  }

  async removeTxt(name: string, value: string): Promise<void> {
    const fqdn = await this.nameInZone(name);
    await nameWrites.run(`${this.zoneUrl} ${fqdn}`, async () => {
      for (const record of await this.records(fqdn, 'TXT')) if (unquoteTxt(record.content) === value) await this.deleteRecord(record.id);
    });
  }

  /**
   * Whether the token may change the zone's records: a token can verify and read the zone yet lack
   * DNS Write, which Cloudflare tells only on a change (403, code 10000 "Authentication error"). So a
   * TXT record of its own is written at `_certhub-check.<zone>` and removed again. Undefined when it
   * may, else what to give the token.
   */
  async missingDnsWrite(): Promise<string | undefined> {
    const probe = `_certhub-check.${await this.zoneName()}`;
    const value = `certhub setup check ${Date.now()}`;
    try {
      await this.addTxt(probe, value);
    } catch (error) {
      if (!(error instanceof CloudflareRefusal && error.codes.includes(10000))) throw error;
      return `cloudflare: the API token reads zone ${this.settings.zoneId} but may not change its DNS records (${error.message.replace(/^.*?\((HTTP 403[^)]*)\).*$/, '$1')}): give it the DNS Write permission (Zone > DNS > Edit) on that zone`;
    }
    await this.removeTxt(probe, value);
    return undefined;
  }

  async list(name: string): Promise<DnsRecord[]> {
    const fqdn = await this.nameInZone(name);
    return (await this.records(fqdn))
      .filter((record) => listedTypes.includes(record.type))
      .map((record) => ({ name: fqdn, type: record.type as DnsRecordType, content: readableContent(record.type, record.content), ttl: record.ttl }));
  }

  private async nameInZone(name: string): Promise<string> {
    const fqdn = canonicalName(name);
    assertInZone(this.kind, fqdn, await this.zoneName());
    return fqdn;
  }

  private async addressRecords(fqdn: string): Promise<CloudflareRecord[]> {
    return (await this.records(fqdn)).filter((record) => addressTypes.includes(record.type));
  }

  private async hasTxt(fqdn: string, value: string): Promise<boolean> {
    return (await this.records(fqdn, 'TXT')).some((record) => unquoteTxt(record.content) === value);
  }

  /** Every record at `fqdn` (of `type` when given), walking `result_info.total_pages`. */
  private async records(fqdn: string, type?: string): Promise<CloudflareRecord[]> {
    const found: CloudflareRecord[] = [];
    for (let page = 1; ; page += 1) {
      const query = new URLSearchParams({ name: fqdn, per_page: String(pageSize), page: String(page) });
      if (type !== undefined) query.set('type', type);
      const { result, result_info: info } = await this.call<CloudflareRecord[]>({ method: 'GET', headers: this.headers }, `/dns_records?${query.toString()}`);
      if (!Array.isArray(result)) throw new OutpostError(certErrors.ERR_DNS_PROVIDER, 'cloudflare: a record listing has no result array');
      // Read, not trusted: a listing of another shape is the provider's error, not a TypeError further on.
      if (!result.every(isRecord)) throw new OutpostError(certErrors.ERR_DNS_PROVIDER, 'cloudflare: a record listing has entries that are not DNS records');
      found.push(...result.filter((record) => record.name.toLowerCase() === fqdn));
      const totalPages = typeof info?.total_pages === 'number' ? info.total_pages : 1;
      // An empty page ends the walk whatever total_pages says: a wrong count cannot keep it asking.
      if (page >= totalPages || result.length === 0) return found;
    }
  }

  private async deleteRecord(id: string): Promise<void> {
    // No body, hence no Content-Type: Cloudflare answers 6003 to a DELETE that has one.
    await this.call({ method: 'DELETE', headers: this.headers }, `/dns_records/${encodeURIComponent(id)}`);
  }

  private async call<T>(request: ProviderRequest, path: string): Promise<Envelope<T>> {
    const response = await zoneRequests.run(this.zoneUrl, () => providerFetch(this.kind, `${this.zoneUrl}${path}`, request, this.timeoutMs));
    let envelope: Envelope<T> | undefined;
    try {
      envelope = JSON.parse(response.body) as Envelope<T>;
    } catch {
      envelope = undefined;
    }
    if (response.status >= 200 && response.status < 300 && envelope?.success === true) return envelope;
    const errors = (Array.isArray(envelope?.errors) ? envelope.errors : []).filter((error) => typeof error === 'object' && error !== null);
    const codes = errors
      .flatMap((error) => [error.code, ...chainOf(error).map((link) => link.code)])
      .filter((code): code is number => typeof code === 'number');
    const described = errors.length === 0 ? excerpt(response.body) : errors.map(describeError).join('; ');
    const retryAfter = response.status === 429 ? response.headers.get('retry-after') : null;
    throw new CloudflareRefusal(this.failure(response.status, codes, described, retryAfter), codes, retryAfterMs(retryAfter));
  }

  private failure(status: number, codes: readonly number[], described: string, retryAfter: string | null): string {
    const seen = `HTTP ${status}, ${described}`;
    if (status === 401 || status === 403 || codes.some((code) => authCodes.includes(code))) {
      return `cloudflare: authentication failed (${seen}): check api_token and its DNS edit permission on zone ${this.settings.zoneId}`;
    }
    if (status === 404 || codes.includes(7003)) return `cloudflare: zone ${this.settings.zoneId} not found (${seen}): check zone_id`;
    if (status === 429)
      return `cloudflare: rate limited (${seen}; 1,200 requests per 5 minutes per user, across all of its tokens)${retryAfter === null ? '' : `, retry after ${retryAfter} s`}`;
    if (status >= 500) return `cloudflare: server error (${seen})`;
    return `cloudflare: the change was refused (${seen})`;
  }
}

type ApiError = NonNullable<Envelope<unknown>['errors']>[number];

/** The error's `error_chain` links that are objects; none when the answer has no list there. */
function chainOf(error: ApiError): { code?: number; message?: string }[] {
  return Array.isArray(error.error_chain) ? error.error_chain.filter((link) => typeof link === 'object' && link !== null) : [];
}

function describeError(error: ApiError): string {
  const chain = chainOf(error)
    .map((link) => ` (${link.code ?? '?'} ${link.message ?? ''})`)
    .join('');
  return `${error.code ?? '?'} ${error.message ?? ''}${chain}`;
}

/** Whether `value` has the fields of a DNS record that are read here (the API's `DNSRecord` object). */
function isRecord(value: unknown): value is CloudflareRecord {
  const record = value as Partial<CloudflareRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.id === 'string' &&
    typeof record.name === 'string' &&
    typeof record.type === 'string' &&
    typeof record.content === 'string' &&
    typeof record.ttl === 'number' &&
    (record.comment === undefined || record.comment === null || typeof record.comment === 'string')
  );
}

/** The mark may have company in the comment (an admin's note after it): what counts is that it is there. */
function isOurs(record: CloudflareRecord): boolean {
  return record.comment?.includes(ownerMark) === true;
}

function sameContent(type: string, a: string, b: string): boolean {
  if (type === 'TXT') return unquoteTxt(a) === unquoteTxt(b);
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}
