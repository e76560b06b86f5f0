// An ava macro that runs a test against a real uWS server on a free loopback port, closing it in
// `finally` whatever the outcome (sindresorhus/got's test/helpers/with-server.ts does the same).
import test, { type ExecutionContext } from 'ava';
import { Router } from '../../src/http/router.js';
import { HttpServer } from '../../src/http/server.js';

export interface ServerFixture {
  server: HttpServer;
  router: Router;
  url: string;
}

export const withServer = test.macro(
  async (t, setup: (fixture: Omit<ServerFixture, 'url'>) => void | Promise<void>, run: (t: ExecutionContext, fixture: ServerFixture) => Promise<void>) => {
    const server = new HttpServer(() => {});
    const router = new Router(server, { cors: true });
    try {
      await setup({ server, router });
      router.finish();
      const port = await server.listen('127.0.0.1', 0);
      await run(t, { server, router, url: `http://127.0.0.1:${port}` });
    } finally {
      server.close();
    }
  },
);
