import { MessageChannel } from 'node:worker_threads';
import test from 'ava';
import { exposeApi, PeerLink } from '../../src/actor/rpc.js';
import { OutpostError } from '../../src/errors.js';

interface SlowApi {
  echo(value: number): Promise<number>;
  never(): Promise<void>;
  refuse(): Promise<void>;
}

function linked(): { link: PeerLink<SlowApi>; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  const api: SlowApi = {
    echo: (value) => Promise.resolve(value),
    never: () => new Promise(() => {}),
    refuse: () => Promise.reject(new OutpostError('ERR_CONFLICT', 'not now')),
  };
  exposeApi(api, port2);
  const link = new PeerLink<SlowApi>('slow', 200);
  link.attach(port1);
  return { link, close: () => port2.close() };
}

test('calls answer, and coded errors come back with their code', async (t) => {
  const { link, close } = linked();
  t.teardown(close);
  t.deepEqual(await Promise.all([1, 2, 3].map((value) => link.call((api) => api.echo(value)))), [1, 2, 3]);
  const error = await t.throwsAsync(link.call((api) => api.refuse()));
  t.true(error instanceof OutpostError);
  t.is((error as OutpostError).code, 'ERR_CONFLICT');
  t.is((link as unknown as { inFlight: Set<unknown> }).inFlight.size, 0, 'settled calls leave nothing behind');
  link.close();
});

test('a call in flight fails when the peer goes away; a later call waits, then times out', async (t) => {
  const { link, close } = linked();
  t.teardown(close);
  const pending = link.call((api) => api.never());
  link.detach('crashed');
  const error = await t.throwsAsync(pending);
  t.is((error as OutpostError).code, 'ERR_ACTOR_UNAVAILABLE');
  t.regex(error.message, /actor slow crashed/);
  const later = await t.throwsAsync(link.call((api) => api.echo(1)));
  t.regex(later.message, /did not come up within 200ms/);
});

test('a call the peer never answers fails with ERR_TIMEOUT after its deadline, and leaves nothing behind', async (t) => {
  const { link, close } = linked();
  t.teardown(close);
  const perCall = await t.throwsAsync(link.call((api) => api.never(), { timeoutMs: 50 }));
  t.true(perCall instanceof OutpostError);
  t.is((perCall as OutpostError).code, 'ERR_TIMEOUT');
  t.is((perCall as OutpostError).status, 504);
  t.regex(perCall.message, /actor slow did not answer within 50ms/);
  t.is((link as unknown as { inFlight: Set<unknown> }).inFlight.size, 0);
  t.is(await link.call((api) => api.echo(7), { timeoutMs: 5000 }), 7, 'the link still works');
  link.close();
});

test('the link has a default deadline for every call', async (t) => {
  const { port1, port2 } = new MessageChannel();
  exposeApi({ never: () => new Promise(() => {}) }, port2);
  const link = new PeerLink<{ never(): Promise<void> }>('stuck', 1000, 80);
  link.attach(port1);
  t.teardown(() => {
    link.close();
    port2.close();
  });
  const error = await t.throwsAsync(link.call((api) => api.never()));
  t.is((error as OutpostError).code, 'ERR_TIMEOUT');
  t.regex(error.message, /did not answer within 80ms/);
});
