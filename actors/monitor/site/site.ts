// hostwatch's HTTP site: the dashboard page, /api/snapshot, /api/stream (SSE), /api/version, /api/spec.
// Snapshots are pushed here by the sampler while someone watches and served from this thread;
// only a request after a quiet spell waits for the sampler to scan.
import { EventStream } from '../../../src/http/sse.js';
import { serveStatic } from '../../../src/http/static.js';
import { jsonType } from '../../../src/http/reply.js';
import { version } from '../../../src/version.js';
import { snapshotTopic } from '../sampler/kind.js';
import type { SnapshotJson } from '../sampler/protocol.js';
import type { SiteDefinition, SiteMount } from '../../../src/http/site.js';
import { roleUiAssets } from '../../../src/http/ui-assets.js';
import { monitorOpenApi } from './openapi.js';
import { monitorApiVersion, type MonitorSite } from './protocol.js';
import { mountVersionRoute } from '../../../src/http/version-route.js';

const noStore = { 'Content-Type': jsonType, 'Cache-Control': 'no-store' };

export const site: SiteDefinition<MonitorSite> = { cors: false, logsRequests: () => false, mount: mountMonitorSite };

async function mountMonitorSite({ router, server, actor: context, site }: SiteMount<MonitorSite>): Promise<void> {
  const sampler = context.peer(site.sampler);
  const streams = new Set<EventStream>();
  let latest: { json: SnapshotJson; at: number } | undefined;
  /** Snapshots pushed so far: a stream's first snapshot must not repeat one pushed while it was asked for. */
  let pushes = 0;

  const remember = (json: SnapshotJson) => {
    latest = { json, at: Date.now() };
    return json;
  };
  /** The newest snapshot as JSON: the pushed one while it is fresh, else one asked for now. */
  const current = async () => {
    if (latest !== undefined && Date.now() - latest.at < site.intervalMs * 1.5) return latest.json;
    return remember(await sampler.call((api) => api.snapshot()));
  };
  const reportWatchers = () => {
    sampler
      .call((api) => api.setWatchers(context.name, streams.size))
      .catch((error: unknown) => context.log.debug('watcher count not delivered', { error: String(error) }));
  };

  // A restarted sampler starts with no watchers and would push nothing to the streams open here.
  sampler.onAttach(() => {
    if (streams.size > 0) reportWatchers();
  });

  serveStatic(router, await roleUiAssets('monitor'));
  mountVersionRoute(router, 'hostwatch', monitorApiVersion);
  const openApi = JSON.stringify(monitorOpenApi(version));
  router
    .get('/api/snapshot', async (_request, reply) => reply.send(200, await current(), noStore))
    .get('/api/spec', (_request, reply) => reply.send(200, openApi, { 'Content-Type': jsonType }))
    .get('/api/stream', async (request, reply) => {
      const stream = new EventStream(request, reply, server, { retryMs: 2000 });
      streams.add(stream);
      stream.onClose(() => {
        streams.delete(stream);
        reportWatchers();
      });
      reportWatchers();
      const pushesBefore = pushes;
      const json = await current();
      // A snapshot pushed meanwhile reached this stream already, and is as new as this one or newer:
      // sent after it, this one would repeat it (a loaded test run saw the same timestamp twice).
      if (stream.isOpen && pushes === pushesBefore) stream.send(json, 'snapshot');
    });

  context.subscribe(snapshotTopic, (snapshot) => {
    pushes++;
    const json = remember(snapshot);
    for (const stream of streams) stream.send(json, 'snapshot');
  });
}
