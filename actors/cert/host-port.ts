// `host:port` as the config takes it: an IP address or a host name, IPv6 in brackets when a port
// follows, the port optional. Shared by propagation.nameservers and probes.addresses.
import { isIP } from 'node:net';
import { z } from 'zod';
import { hostNameProblem, normalizeName } from '../../src/net/host-names.js';

/** `host[:port]`, parsed to `{host, port}`; a port left out is `defaultPort`. */
export function hostPort<Default extends number | null>(defaultPort: Default, example: string) {
  return z.string().transform((value, context) => {
    const match = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(value) ?? (isIP(value) === 6 ? [value, value] : /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(value));
    const host = match?.[1] ?? '';
    const portNumber = match?.[2] === undefined ? defaultPort : Number(match[2]);
    const hostValid = isIP(host) !== 0 || hostNameProblem(normalizeName(host), 1) === undefined;
    if (match === null || !hostValid || (portNumber !== null && (portNumber < 1 || portNumber > 65535))) {
      context.addIssue({ code: 'custom', message: `must be host:port, e.g. ${example}` });
      return z.NEVER;
    }
    return { host, port: portNumber };
  });
}
