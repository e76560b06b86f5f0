// The `probes` section as the domains actor gets it (prober.ts): types only, so the domains protocol,
// which the panel's type-check reads too, names them without pulling in the probe's Node code.

export interface ProbeSettings {
  intervalMs: number;
  timeoutMs: number;
  /** The port probed when a host said none (probes.port). */
  port: number;
  /** Host name -> the address the operator gave it (probes.addresses); its port, when null, is the host's or probes.port. */
  addresses: Readonly<Record<string, { host: string; port: number | null }>>;
}
