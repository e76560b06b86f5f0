// The fronts of a role: one http-front actor per thread, all on one port. Threads share the port
// through SO_REUSEPORT, which needs a concrete port for all of them: a port left at 0 is picked here.
// So does a TLS front on its own, which listens a second time on its port for a new certificate.
import { actorSpec, type ActorApi, type ActorRef } from '../../src/actor/kind.js';
import type { ActorSpec } from '../../src/actor/spec.js';
import type { HttpFrontConfig } from '../../src/http/front-config.js';
import { concretePort } from '../../src/http/port.js';
import { httpFrontActor } from './kind.js';

export interface FrontsOptions {
  role: string;
  threads: number;
  config: HttpFrontConfig;
  /** The actors the site calls. */
  links?: readonly ActorRef<ActorApi>[];
  /** The site streams the process's log ring (SpecOptions.readsLogs). */
  readsLogs?: boolean;
}

/** Specs of `threads` fronts: `<role>/http-front`, or `<role>/http-front#1..n` for several. */
export async function frontSpecs({ role, threads, config, links = [], readsLogs = false }: FrontsOptions): Promise<ActorSpec[]> {
  const port = await concretePort(config.host, config.port, threads > 1 || config.tls !== undefined);
  return Array.from({ length: threads }, (_, index) =>
    actorSpec(httpFrontActor, {
      ref: threads === 1 ? `${role}/http-front` : `${role}/http-front#${index + 1}`,
      role,
      config: { ...config, port },
      links,
      front: true,
      instance: index + 1,
      readsLogs,
    }),
  );
}
