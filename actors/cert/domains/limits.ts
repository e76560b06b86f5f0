// What certhub refuses to grow into, whatever the request's own form: more domains
// than the benchmarks prove it serves, and CNAME records that chase each other between its own names.
// Both depend on the domains already there, not on the request alone, so both are ERR_CONFLICT (409,
// "the resource is in a state that forbids this change"), as a duplicate name is; a request that is
// wrong by itself (a CNAME to its own name) stays ERR_BAD_REQUEST in names.ts.
import { OutpostError } from '../../../src/errors.js';
import type { Target } from '../dns/targets.js';

/** max_domains' default: the count benchmarks/cert-store.ts, cert-fetch.ts and panel.ts measure. */
export const defaultMaxDomains = 10_000;

/** ERR_CONFLICT when `count` domains already fill the `maxDomains` allowed. */
export function refuseOverLimit(count: number, maxDomains: number): void {
  if (count < maxDomains) return;
  throw new OutpostError(
    'ERR_CONFLICT',
    `certhub manages ${count} domains and max_domains (config.json) allows ${maxDomains}: remove a domain, or raise max_domains`,
  );
}

/**
 * ERR_CONFLICT when pointing `name` at `target` closes a CNAME loop through managed names
 * (a -> b -> a, or longer): a resolver would chase it until it gives up, and no CA could validate it.
 * `targetOf` gives a managed name's current target, undefined for a name certhub does not manage.
 */
export function refuseCnameLoop(name: string, target: Target, targetOf: (name: string) => Target | undefined): void {
  if (target.record_type !== 'CNAME') return;
  const chain = [name];
  // `seen` bounds the walk even on a store an older version left with a loop among other names.
  const seen = new Set(chain);
  let next: Target | undefined = target;
  while (next?.record_type === 'CNAME' && !seen.has(next.target)) {
    chain.push(next.target);
    seen.add(next.target);
    next = targetOf(next.target);
  }
  if (next?.record_type !== 'CNAME' || next.target !== name) return;
  throw new OutpostError(
    'ERR_CONFLICT',
    `target "${target.target}" would make a CNAME loop between managed names: ${[...chain, name].join(' -> ')}; point one of them elsewhere first`,
  );
}
