// Schema pieces shared by every role's config, each with the rule its error message states.
import { isIP } from 'node:net';
import { z } from 'zod';
import { hostNameProblem, normalizeName } from '../net/host-names.js';

export const port = z.number().int().min(0).max(65535);

export const positiveInteger = z.number().int().min(1);

/** An IP address, or a host name of one label or more (`localhost`, `edge.example.net`) as src/net/host-names.ts checks it. */
function isAddressOrHostName(value: string): boolean {
  return isIP(value) !== 0 || hostNameProblem(normalizeName(value), 1) === undefined;
}

/** An IP address or a host name to bind to. */
export const bindAddress = z.string().min(1).refine(isAddressOrHostName, { message: 'must be an IP address or a host name' });

/** Host names (or addresses) a front answers besides loopback ones (src/http/allowed-hosts.ts). */
export const allowedHosts = z
  .array(z.string().min(1).refine(isAddressOrHostName, { message: 'must be a host name or an IP address, without a port' }))
  .max(100)
  .default([]);

/** A list of program arguments (run without a shell): at least the program. */
/** Reverse proxies in front of a server, by IP address: whose X-Forwarded-For names the client. */
export const trustedProxies = z
  .array(z.string().refine((address) => isIP(address) !== 0, { message: 'must be an IP address' }))
  .max(100)
  .default([]);

export const commandLine = z.array(z.string().min(1)).min(1);
