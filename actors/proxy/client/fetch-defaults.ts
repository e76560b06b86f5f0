// The defaults and exit codes of `certhub-agent fetch`, apart from the client's code: the command's
// options and help name them at start, and the code that uses them is loaded when a fetch runs.
import { exitCodes } from '../../../src/errors.js';

/** The deadline of one fetch, connecting included, when none is given. */
export const defaultFetchTimeoutMs = 30_000;

/** The exit codes of `certhub-agent fetch` (2 is every executable's usage and configuration error). */
export const fetchExitCodes = {
  /** Every domain fetched; changed material written and the reload command (if any) succeeded. */
  ok: 0,
  /** At least one domain could not be fetched or written; its files are as they were. */
  fetchFailed: 1,
  usage: exitCodes.usage,
  /** Every domain fetched and written, but the reload command failed. */
  reloadFailed: 3,
} as const;
