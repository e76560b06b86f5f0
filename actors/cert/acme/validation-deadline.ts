// How long certhub waits for the CA to validate an authorization (validation-poll.ts), apart so that
// the cert role can size the order's deadline without loading the ACME client at every start.

export interface ValidationPolling {
  /** How long after the challenge was answered the authorization may still be pending. */
  deadlineMs: number;
  /** Shortest pause between two polls, whatever Retry-After says. */
  minMs: number;
  /** Longest pause when the CA sends no Retry-After; a Retry-After may ask for more, up to the deadline. */
  maxMs: number;
}

/** Five minutes: Let's Encrypt validates in seconds; a CA still busy after that is treated as failed. */
export const defaultValidationPolling: ValidationPolling = { deadlineMs: 5 * 60_000, minMs: 100, maxMs: 5000 };
