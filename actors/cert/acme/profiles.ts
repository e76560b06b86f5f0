// ACME profiles (draft-ietf-acme-profiles): a CA lists the certificate profiles it offers in its
// directory's `meta.profiles` (name -> description) and a newOrder may name one as `profile`. Let's
// Encrypt offers classic (90 days), tlsserver and shortlived (about 160 hours); the profile changes the
// certificate's lifetime and contents, not how it is ordered. A CA whose directory lists no profiles
// is sent none: the choice is certhub's, and such a CA has only its one kind of certificate.
import type { Client } from 'acme-client';
import { AcmeOrderError } from './errors.js';

/** The profiles a CA offers: name -> its description (often a URL), as the directory says. */
export type OfferedProfiles = Readonly<Record<string, string>>;

/** The problem type a CA answers a newOrder naming a profile it does not offer with (draft-ietf-acme-profiles §4). */
export const invalidProfile = 'urn:ietf:params:acme:error:invalidProfile';

/** A profile name as certhub accepts it (config, admin API): what the draft's examples and Let's Encrypt use. */
export const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `meta.profiles` of the client's directory; null when the CA lists none (or lists them in another shape). */
export async function offeredProfiles(client: Client): Promise<OfferedProfiles | null> {
  const http = (client as unknown as { api: { http: { getMetaField(field: string): Promise<unknown> } } }).api.http;
  return readOfferedProfiles(await http.getMetaField('profiles'));
}

export function readOfferedProfiles(field: unknown): OfferedProfiles | null {
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return null;
  const entries = Object.entries(field as Record<string, unknown>).filter(([name]) => name !== '');
  if (entries.length === 0) return null;
  return Object.fromEntries(entries.map(([name, description]) => [name, typeof description === 'string' ? description : '']));
}

/** "classic, shortlived and tlsserver" */
export function profileList(offered: OfferedProfiles): string {
  const names = Object.keys(offered).sort();
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
}

/** Why `profile` cannot be ordered from a CA offering `offered`, or undefined when it can. */
export function profileProblem(profile: string, offered: OfferedProfiles | null): string | undefined {
  if (offered === null) return `the CA offers no profiles (its directory has no meta.profiles), so profile "${profile}" cannot be chosen`;
  if (!Object.hasOwn(offered, profile)) return `the CA does not offer profile "${profile}"; it offers ${profileList(offered)}`;
  return undefined;
}

/**
 * What a newOrder carries as `profile`: `chosen` when the CA offers it, nothing when the CA lists no
 * profiles (a private CA, Pebble), and a refusal naming the offered ones when the CA lists others.
 */
export function profileToSend(chosen: string | undefined, offered: OfferedProfiles | null): string | undefined {
  if (chosen === undefined || offered === null) return undefined;
  const problem = profileProblem(chosen, offered);
  if (problem !== undefined) throw new AcmeOrderError(`acme: ${problem}`, undefined, invalidProfile);
  return chosen;
}
