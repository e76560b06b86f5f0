// certhub-agent proxy with two routes (alpha.test, beta.test), each with its own test certificate and its
// own recording backend: the set-up the proxy's integration, hostile-client and TLS-policy tests share.
import type { ExecutionContext } from 'ava';
import { startAgentProxy, temporaryDir, writeTestMaterial, type AgentProxy } from './agent-proxy.js';
import { startProxyBackend, type ProxyBackend } from './proxy-backend.js';

export const routeToken = 'chd_test_token';

export interface TwoRouteProxy {
  proxy: AgentProxy;
  materialDir: string;
  alpha: ProxyBackend;
  beta: ProxyBackend;
}

/** `config` is merged into the proxy's config (limits, threads); `alphaRoute` into alpha.test's route. */
export async function startTwoRouteProxy(t: ExecutionContext, options: { config?: object; alphaRoute?: object } = {}): Promise<TwoRouteProxy> {
  const materialDir = await temporaryDir(t, 'two-route-proxy-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  await writeTestMaterial(materialDir, 'beta.test', '0b');
  const [alpha, beta] = await Promise.all([startProxyBackend(t, 'alpha'), startProxyBackend(t, 'beta')]);
  const proxy = await startAgentProxy(t, {
    server: 'https://certhub.example.test/',
    // The tests write the material themselves: nothing is fetched from that server.
    fetch: false,
    routes: { 'alpha.test': { backend: alpha.address, token: routeToken, ...options.alphaRoute }, 'beta.test': { backend: beta.address, token: routeToken } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 1,
    ...options.config,
  });
  return { proxy, materialDir, alpha, beta };
}
