// A paused identifier: Let's Encrypt pauses an account's orders for a name after a long run of failed
// validations, and refuses every new order for it with `rateLimited` until someone visits the unpause
// page the CA links (boulder wfe2/wfe.go NewOrder: probs.Paused, "Your account is temporarily prevented
// from requesting certificates for <names> and possibly others. Please visit: <unpause URL>"). No wait
// lifts it, so the domain's error names the name and the URL, for a person to act on.
import type { CaCallState } from './ca-connection.js';
import { AcmeOrderError } from './errors.js';

export const rateLimited = 'urn:ietf:params:acme:error:rateLimited';

/** The unpause URL of a refusal that pauses the identifier, when the refusal is one; else undefined. */
export function unpauseUrlOf(state: CaCallState): string | undefined {
  if (state.problemType !== rateLimited) return undefined;
  const detail = state.problemDetail ?? '';
  if (!/temporarily prevented from requesting certificates|paused/i.test(detail) && state.problemInstance === undefined) return undefined;
  // The CA's own link: `instance` (RFC 7807 §3.1) when it gives one, else the URL in the detail.
  const candidates = [state.problemInstance, /https:\/\/\S+/.exec(detail)?.[0]?.replace(/[.,;)]+$/, '')];
  return candidates.find((url) => url !== undefined && URL.canParse(url) && new URL(url).protocol === 'https:');
}

/** The error an order for `name` ends with when the CA paused it: the name and the unpause URL, with the CA's words. */
export function pausedError(name: string, url: string, state: CaCallState): AcmeOrderError {
  return new AcmeOrderError(
    `acme: the CA has paused ${name} for this account: no order for it passes until it is unpaused at ${url} (the CA says: ${state.problemDetail ?? 'paused'})`,
    state.retryAfterSeconds,
    state.problemType,
  );
}
