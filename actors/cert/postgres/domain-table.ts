// The domains in the shared store: one row per domain in `domains`, the record and the material as
// the files store writes them (domains/store.ts), with the two secrets sealed under the store key
// (secret-box.ts): the token inside the record and the private key inside the material. A dump of the
// database therefore holds neither. The columns are `json`, which keeps the text as written (key
// order included), so a domain copied from files to PostgreSQL and back is the same file, byte for
// byte. Each write raises the row's version, the number a node's optimistic concurrency compares.
import { hostNameProblem } from '../../../src/net/host-names.js';
import { KeyedSerializer } from '../../../src/store/keyed-serializer.js';
import type { Material } from '../acme/protocol.js';
import { normalizeMaterial } from '../domains/material.js';
import { domainRecordSchema } from '../domains/record.js';
import type { DomainWrites, LoadedDomains, StoredDomain } from '../domains/store.js';
import type { Postgres } from './connection.js';
import type { SecretBox } from './secret-box.js';

interface DomainRow {
  name: string;
  record: unknown;
  material: unknown;
}

/** Where a domain's secret is kept: the associated data that binds the sealed value to its place. */
export const tokenPlace = (name: string): string => `domains/${name}/token`;
export const keyPlace = (name: string): string => `domains/${name}/key`;

export class PostgresDomainTable implements DomainWrites {
  /** Writes to one domain run in call order, so an older write never lands after a newer one. */
  private readonly writes = new KeyedSerializer();

  constructor(
    private readonly postgres: Postgres,
    private readonly box: SecretBox,
  ) {}

  /** Every domain in the table, its secrets opened; a row that does not read is skipped and named. */
  async loadAll(): Promise<LoadedDomains> {
    const rows = await this.postgres.query<DomainRow>('SELECT name, record, material FROM domains ORDER BY name');
    const domains = new Map<string, StoredDomain>();
    const problems: string[] = [];
    for (const row of rows) {
      try {
        domains.set(row.name, this.opened(row));
      } catch (error) {
        problems.push(`the stored domain ${row.name} cannot be read: ${(error as Error).message}; skipped`);
      }
    }
    return { domains, problems };
  }

  async write(domain: StoredDomain): Promise<void> {
    const { name } = domain.record;
    if (hostNameProblem(name) !== undefined) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    const material = domain.material === undefined ? null : normalizeMaterial(domain.material, domain.record.own_key);
    const record = JSON.stringify({ ...domain.record, token: this.box.seal(domain.record.token, tokenPlace(name)) });
    const sealedMaterial = material === null ? null : JSON.stringify({ ...material, key_pem: this.sealKey(material.key_pem, name) });
    await this.writes.run(name, async () => {
      await this.postgres.query(
        `INSERT INTO domains (name, record, material) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET record = $2, material = $3, version = domains.version + 1, updated_at = now()`,
        [name, record, sealedMaterial],
      );
    });
  }

  remove(name: string): Promise<void> {
    return this.writes.run(name, async () => {
      await this.postgres.query('DELETE FROM domains WHERE name = $1', [name]);
    });
  }

  async flush(): Promise<void> {
    await this.writes.settled();
  }

  private opened(row: DomainRow): StoredDomain {
    const parsed = domainRecordSchema.safeParse(row.record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${['record', ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? ''}`);
    }
    if (parsed.data.name !== row.name) throw new Error(`its record names ${parsed.data.name}`);
    // The record as stored, its keys in their order, with the token opened in its place.
    const record = { ...(row.record as Record<string, unknown>), token: this.box.open(parsed.data.token, tokenPlace(row.name)) } as StoredDomain['record'];
    if (row.material === null) return { record, material: undefined };
    const material = row.material as Partial<Record<keyof Material, unknown>>;
    if (typeof material.cert_pem !== 'string' || typeof material.chain_pem !== 'string' || typeof material.key_pem !== 'string')
      throw new Error('its material lacks cert_pem, chain_pem or key_pem');
    return {
      record,
      material: { ...(material as Material), key_pem: material.key_pem === '' ? '' : this.box.open(material.key_pem, keyPlace(row.name)) },
    };
  }

  /** An own_key domain has no key here: nothing to seal. */
  private sealKey(keyPem: string, name: string): string {
    return keyPem === '' ? '' : this.box.seal(keyPem, keyPlace(name));
  }
}
