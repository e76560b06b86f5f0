// What metrics add to each request, measured alone: the counting a front does per answer when
// metrics are on, run a million times in this process and timed by CPU. A hot path's end-to-end
// cost (metrics on against off, both loaded) moves by several percent from round to round on a
// shared 2-core machine; this part moves by nanoseconds, so metrics-cost adds it to the fixed cost
// per second it measures with the servers idle, for a figure the noise does not hide.
import { RouteFigures as ProxyRouteFigures } from '../../actors/proxy/proxy-front/figures.js';
import { HttpFigures } from '../../src/metrics/http-figures.js';

const iterations = 1_000_000;

/** CPU nanoseconds per call of `count`, after a warm-up as long as the run (the JIT optimises it first). */
function nanosPerCall(count: (index: number) => void): number {
  for (let index = 0; index < iterations; index++) count(index);
  const before = process.cpuUsage();
  for (let index = 0; index < iterations; index++) count(index);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / iterations;
}

/**
 * What src/http/router.ts does per answer with metrics on and not with them off: a second
 * performance.now(), the request's Content-Length read, and RouteFigures.record.
 */
export function httpFrontCountingNanos(): number {
  const route = new HttpFigures().route('GET', '/api/random/hex');
  const headers = new Map([
    ['host', '127.0.0.1'],
    ['user-agent', 'wrk'],
  ]);
  const startedAt = performance.now();
  return nanosPerCall((index) =>
    route.record(index % 50 === 0 ? 404 : 200, (performance.now() - startedAt) / 1000, Number(headers.get('content-length') ?? 0) || 0, 64),
  );
}

/** What actors/proxy/proxy-front/forward.ts does per answer with metrics on: a performance.now(), the upstream histogram and the status class. */
export function proxyCountingNanos(): number {
  const route = new ProxyRouteFigures('app.example.test');
  const arrivedAt = performance.now();
  return nanosPerCall((index) => {
    route.upstream.observe((performance.now() - arrivedAt) / 1000);
    route.answered(index % 50 === 0 ? 502 : 200);
  });
}
