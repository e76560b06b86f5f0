// A domain's ACME profile, checked against the profiles the CA's directory lists before it is kept:
// a name the CA does not offer is refused (400) with the ones it does. A CA that cannot be asked now
// (down, or its account not open yet) does not block the change: the order checks again, and fails
// with the same words if the profile is not offered.
import { OutpostError } from '../../../src/errors.js';
import type { Logger } from '../../../src/log/record.js';
import { profileNamePattern, profileProblem, type OfferedProfiles } from '../acme/profiles.js';
import type { Issuer } from './issuer.js';

export async function checkedProfile(profile: string, issuer: Pick<Issuer, 'profiles'>, log: Logger): Promise<string> {
  if (!profileNamePattern.test(profile))
    throw new OutpostError(
      'ERR_BAD_REQUEST',
      `profile must be a profile name the CA lists (letters, digits, ".", "_" and "-"), not ${JSON.stringify(profile)}`,
    );
  let offered: OfferedProfiles | null;
  try {
    offered = await issuer.profiles();
  } catch (error) {
    log.warn(
      `the CA's profiles could not be read to check profile ${profile} (the order checks it): ${error instanceof Error ? error.message : String(error)}`,
    );
    return profile;
  }
  const problem = profileProblem(profile, offered);
  if (problem !== undefined) throw new OutpostError('ERR_BAD_REQUEST', problem);
  return profile;
}
