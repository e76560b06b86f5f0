// Which PowerDNS Authoritative servers take the `EXTEND` and `PRUNE` change types, which add or remove
// one record of an RRset without rewriting the others (PowerDNS/pdns#16589, backported: new in 4.9.12
// and 5.0.2 per pdns#16620 and #16652). Decided from the `version` of GET /api/v1/servers/{server_id}.

/** major, minor, patch, then 0 for a pre-release (`-alpha1`, `-rc2`, `-...master`) and 1 for the release. */
type VersionKey = readonly [number, number, number, number];

/** The first release with EXTEND/PRUNE in each series that has them: 4.9.x from .12, 5.0.x from .2, every later one. */
const firstInSeries: readonly VersionKey[] = [
  [4, 9, 12, 1],
  [5, 0, 2, 1],
];
const allFrom: VersionKey = [5, 1, 0, 1];

/**
 * Whether the server whose API reports `version` takes EXTEND/PRUNE. What cannot be read answers
 * false, since REPLACE works on every server. A pre-release counts as before its release
 * (`4.9.12-rc1` and `5.1.0-alpha1` do not, `6.0.0-alpha1` does); build metadata after `+` is ignored.
 * A build from a branch reports `0.0.x-...`: false, as is every series before 4.9.
 */
export function supportsExtendPrune(version: string): boolean {
  const key = versionKey(version);
  if (key === null) return false;
  if (compare(key, allFrom) >= 0) return true;
  return firstInSeries.some((first) => key[0] === first[0] && key[1] === first[1] && compare(key, first) >= 0);
}

function versionKey(version: string): VersionKey | null {
  const match = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})(-[0-9A-Za-z.~_-]+)?$/.exec(version.trim().split('+')[0] ?? '');
  if (match === null) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3]), match[4] === undefined ? 1 : 0];
}

function compare(a: VersionKey, b: VersionKey): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
