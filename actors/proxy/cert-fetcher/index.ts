// The cert-fetcher actor's thread entry: runs the watch loop until stopped; a domain whose material
// changed is reloaded by every front before its next fetch is planned. Routes changed by a reload
// (fetchRoutesTopic) replace the loop: the new one fetches every route once, then on its schedule.
import { readFile } from 'node:fs/promises';
import { runActor } from '../../../src/actor/worker-entry.js';
import { CertificateFetchError } from '../client/fetch-failure.js';
import { trustAnchors } from '../client/material-trust.js';
import { watchCertificates, type WatchEvent } from '../client/watch.js';
import { FetchFigures } from './fetch-figures.js';
import { frontsReloadLine, refusedTokenAdvice } from './fetch-lines.js';
import { certFetcherActor, fetchRoutesTopic } from './kind.js';
import type { FetchRoute } from './protocol.js';
import { lazyHostIdentity } from '../client/host-identity.js';
import { hostReport, sendHostReport } from '../client/host-report.js';
import { serverMoveLine } from '../client/certhub-servers.js';

runActor(certFetcherActor, {
  async start(context) {
    const { config, log } = context;
    const ca = config.caFile === undefined ? undefined : await readFile(config.caFile, 'utf8');
    const bundle = config.caBundleFile === undefined ? undefined : await readFile(config.caBundleFile, 'utf8');
    const fronts = config.fronts.map((ref) => context.peer(ref));
    const servers = config.servers.map((url) => new URL(url));
    const certhubName = servers.length === 1 ? (servers[0]?.origin ?? 'certhub') : 'certhub';
    const identity = lazyHostIdentity(config.materialDir, config.hostName);
    const figures = context.metrics.enabled ? new FetchFigures() : undefined;
    if (figures !== undefined) context.metrics.addSource(() => figures.families());
    const describe = (event: WatchEvent) => {
      figures?.observe(event);
      const next = 'nextInMs' in event ? `; next fetch in ${Math.round(event.nextInMs / 1000)} s` : '';
      // The failures were logged as warnings, so their end is said too, or a reader thinks it still fails.
      if ((event.type === 'written' || event.type === 'unchanged') && event.recoveredAfter !== undefined) {
        log.info(
          `fetch: ${event.domain}: recovered, ${certhubName} answers again after ${event.recoveredAfter} failed fetch${event.recoveredAfter === 1 ? '' : 'es'}`,
        );
      }
      switch (event.type) {
        case 'written':
          return log.info(`fetch: new material for ${event.domain}, valid until ${new Date(event.expiresAt).toISOString()}${next}`);
        case 'unchanged':
          return log.debug(`fetch: ${event.domain} unchanged${next}`);
        case 'failed': {
          const at = new Date(Date.now() + event.nextInMs).toISOString();
          log.warn(`fetch: ${event.domain}: ${event.error.message} (failure ${event.failures})${next}, at ${at}`);
          if (event.error instanceof CertificateFetchError && event.error.kind === 'token-refused')
            log.warn(refusedTokenAdvice(event.domain, event.error.retired));
          return;
        }
        case 'change-failed':
          return log.warn(`fetch: ${event.domain}: the fronts did not reload it: ${event.error.message}`);
        case 'report-failed':
          return log.warn(`fetch: ${event.domain}: ${event.error.message}`);
        case 'server-moved':
          return log.warn(`fetch: ${serverMoveLine(event.move)}`);
        default:
          throw new Error(`unknown watch event ${JSON.stringify(event satisfies never)}`);
      }
    };
    const watch = (routes: readonly FetchRoute[]) => {
      const stop = new AbortController();
      const watching = watchCertificates({
        targets: routes.map(({ domain, token }) => ({ servers, domain, token, pin: config.pin })),
        // The material is checked as certhub-agent fetch checks it: a chain to a trusted root, unless allowed.
        trust: config.allowUntrusted ? 'untrusted-allowed' : trustAnchors(bundle),
        dir: config.materialDir,
        intervalMs: config.intervalMs,
        ...(config.ownKeyType === undefined ? {} : { ownKey: { keyType: config.ownKeyType, rekey: false } }),
        ...(ca === undefined ? {} : { ca }),
        signal: stop.signal,
        onEvent: describe,
        onChange: async (material) => {
          const outcomes = await Promise.all(fronts.map((front) => front.call((api) => api.reload(material.domain))));
          const line = frontsReloadLine(material.domain, outcomes);
          log.info(line);
          // A front that kept the previous certificate serves it still: the host is stale until it takes the new one.
          return { ok: !outcomes.includes('kept'), exit_code: null, output: [line] };
        },
        onChecked: async ({ material, reload, nextCheckAt, servers: choice }) => {
          const route = routes.find(({ domain }) => domain === material.domain);
          if (route === undefined) return;
          await sendHostReport(
            { servers: choice, domain: route.domain, token: route.token, pin: config.pin, ...(ca === undefined ? {} : { ca }), signal: stop.signal },
            hostReport({ identity: await identity(), agent: 'proxy', material, reload, nextCheckAt, port: config.servePort }),
          );
        },
      });
      watching.catch((error: unknown) => log.error(`fetch: the watch loop stopped: ${error instanceof Error ? error.message : String(error)}`));
      return async () => {
        stop.abort();
        await watching.catch(() => {});
      };
    };
    let running = config.routes;
    let stopWatching = watch(running);
    // One change at a time: the loop of the last routes runs alone once the one before it stopped.
    let changing = Promise.resolve();
    context.subscribe(fetchRoutesTopic, (routes) => {
      if (JSON.stringify(routes) === JSON.stringify(running)) return;
      running = routes;
      changing = changing.then(async () => {
        await stopWatching();
        log.info(`fetch: now watching ${routes.length} route${routes.length === 1 ? '' : 's'}: ${routes.map(({ domain }) => domain).join(', ')}`);
        stopWatching = watch(routes);
      });
    });
    return {
      api: {},
      stop: async () => {
        await changing;
        await stopWatching();
      },
    };
  },
});
