// Schema pieces shared by every role's config, each with the rule its error message states.
import { isIP } from 'node:net';
import { z } from 'zod';

export const port = z.number().int().min(0).max(65535);

export const positiveInteger = z.number().int().min(1);

/** An IP address or a host name to bind to. */
export const bindAddress = z
  .string()
  .min(1)
  .refine((value) => isIP(value) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(value), { message: 'must be an IP address or a host name' });

/** Host names (or addresses) a front answers besides loopback ones (src/http/allowed-hosts.ts). */
export const allowedHosts = z
  .array(
    z
      .string()
      .min(1)
      .refine((value) => isIP(value) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(value), { message: 'must be a host name or an IP address, without a port' }),
  )
  .max(100)
  .default([]);

/** A list of program arguments (run without a shell): at least the program. */
/** Reverse proxies in front of a server, by IP address: whose X-Forwarded-For names the client. */
export const trustedProxies = z.array(z.string().refine((address) => isIP(address) !== 0, { message: 'must be an IP address' })).max(100).default([]);

export const commandLine = z.array(z.string().min(1)).min(1);
