// The real components certhub talks to, started for one test: PowerDNS (with its zone) and Pebble
// validating through it. Stopped in `finally` whatever the outcome.
import test, { type ExecutionContext } from 'ava';
import { startPebble, type PebbleOptions, type PebbleServer } from '../../benchmarks/third-party/pebble.js';
import { startPowerDns, type PowerDnsOptions, type PowerDnsServer } from '../../benchmarks/third-party/powerdns.js';

export interface CertStack {
  powerdns: PowerDnsServer;
  pebble: PebbleServer;
}

/** `pebble`: Pebble's environment and settings beyond the defaults (its nameserver is the stack's PowerDNS). */
export async function startCertStack(options: PowerDnsOptions = {}, pebble: Omit<PebbleOptions, 'dnsServer'> = {}): Promise<CertStack> {
  const powerdns = await startPowerDns(options);
  try {
    return { powerdns, pebble: await startPebble({ ...pebble, dnsServer: powerdns.nameserver }) };
  } catch (error) {
    await powerdns.stop();
    throw error;
  }
}

export async function stopCertStack(stack: CertStack): Promise<void> {
  await Promise.all([stack.pebble.stop(), stack.powerdns.stop()]);
}

/** An ava macro: PowerDNS + Pebble for the test, stopped in `finally`. */
export const withCertStack = test.macro(async (t, body: (t: ExecutionContext, stack: CertStack) => Promise<void>) => {
  const stack = await startCertStack();
  try {
    await body(t, stack);
  } finally {
    await stopCertStack(stack);
  }
});

/** An ava macro: a fresh PowerDNS for the test, stopped in `finally`. */
export const withPowerDns = test.macro(async (t, body: (t: ExecutionContext, powerdns: PowerDnsServer) => Promise<void>, options: PowerDnsOptions = {}) => {
  const powerdns = await startPowerDns(options);
  try {
    await body(t, powerdns);
  } finally {
    await powerdns.stop();
  }
});
