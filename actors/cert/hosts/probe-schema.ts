// The `probes` section of certhub's config.json: whether certhub connects to the hosts that report,
// how often, with what deadline, and the addresses the operator gives some hosts by name (prober.ts).
import { z } from 'zod';
import { positiveInteger } from '../../../src/config/rules.js';
import { hostPort } from '../host-port.js';

export const probesSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Probe each host that reports: a TLS handshake naming the domain, to see the certificate it presents.'),
    interval_seconds: positiveInteger
      .min(10)
      .max(86_400)
      .default(300)
      .describe('How often each host is probed; a report naming another certificate is probed at once.'),
    timeout_seconds: positiveInteger.max(60).default(5).describe('A handshake not complete this long after the connection starts fails the probe.'),
    port: positiveInteger.max(65_535).default(443).describe('The port probed when the host reports none (certhub-agent proxy reports its own).'),
    addresses: z
      .record(z.string().min(1).max(253), hostPort(null, '192.0.2.10:443, [2001:db8::10]:8443 or web-1.internal'))
      .default({})
      .describe(
        "Host name (as the agent reports it) -> the address to probe instead of the one its reports come from (host, or host:port), e.g. behind NAT. Only these and the reports' own addresses are ever probed.",
      ),
  })
  .describe('Probes of the hosts that report (docs/certhub.md, Probe what hosts serve): off by default.');
