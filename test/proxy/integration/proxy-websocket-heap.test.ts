// What a relayed WebSocket leaves in a proxy front's heap once it is closed: nothing
// that stays. The front's heap is read through the proxy's inspector right after a full GC
// (benchmarks/soak/inspector.ts), since its used heap without one counts garbage V8 has not collected
// yet, about 8 KiB a relayed WebSocket until the next full GC (docs/benchmarks.md, Soak).
import test from 'ava';
import type WebSocket from 'ws';
import { InspectedProcess, inspectorLine } from '../../../benchmarks/soak/inspector.js';
import { proxiedWebSocket, startAgentProxy, temporaryDir, writeTestMaterial } from '../../helpers/agent-proxy.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';

/** Enough for the front's code to be compiled and its pools to reach their size. */
const warmUp = 300;
const measured = 600;
/** Per WebSocket: the 7-9 KiB of garbage each leaves, if it stayed, is several times this. */
const maxBytesLeftEach = 2048;

test(`${measured} WebSockets relayed and closed leave less than ${maxBytesLeftEach} bytes each in the front's heap after a full GC`, async (t) => {
  const materialDir = await temporaryDir(t, 'proxy-websocket-heap-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  const backend = await startProxyBackend(t, 'alpha');
  const proxy = await startAgentProxy(
    t,
    {
      server: 'https://certhub.example.test/',
      fetch: false,
      routes: { 'alpha.test': { backend: backend.address, token: 'chd_test_token' } },
      host: '127.0.0.1',
      port: 0,
      material_dir: materialDir,
      threads: 1,
    },
    { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --inspect=127.0.0.1:0` },
  );
  const [, inspectorUrl] = await proxy.process.waitFor(inspectorLine);
  const inspector = await InspectedProcess.connect(inspectorUrl!);
  t.teardown(() => inspector.close());
  const frontHeap = async () => {
    const fronts = [...(await inspector.heapsAfterFullGc())].filter(([thread]) => thread.startsWith('proxy-front '));
    t.is(fronts.length, 1, 'one front thread');
    return fronts[0]![1];
  };
  let closedWithoutCode = 0;
  const relay = async (count: number) => {
    let left = count;
    // Four at a time, each echoing three messages and closed by the client, as the soak's are.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (left-- > 0) if ((await echoThreeAndClose(await proxiedWebSocket(proxy.port, 'alpha.test', '/echo'))) === 1006) closedWithoutCode++;
      }),
    );
  };

  await relay(warmUp);
  const before = await frontHeap();
  await relay(measured);
  const after = await frontHeap();
  // The relay's open defect (docs/certhub-agent.md: under load a short WebSocket sometimes ends with 1006 before its
  // first echo) is not this test's subject: such a WebSocket was still opened and closed through the
  // front. It is logged; most must echo.
  if (closedWithoutCode > 0) t.log(`${closedWithoutCode} WebSockets closed with 1006 (the open relay defect)`);
  t.true(closedWithoutCode < (warmUp + measured) / 10, `${closedWithoutCode} of ${warmUp + measured} WebSockets closed with 1006`);
  t.log(
    `front heap after a full GC: ${(before / 1024).toFixed(0)} KiB after ${warmUp} WebSockets, ${(after / 1024).toFixed(0)} KiB after ${measured} more (${((after - before) / measured).toFixed(0)} bytes each)`,
  );
  t.true(after - before < measured * maxBytesLeftEach, `the front's heap rose by ${after - before} bytes over ${measured} WebSockets`);
});

/** Resolves with the close code: 1000 once the three echoes came back, 1006 if the connection dropped. */
function echoThreeAndClose(socket: WebSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = ['one', 'two', 'three'];
    const received: string[] = [];
    socket.on('message', (data: Buffer) => {
      received.push(data.toString('utf8'));
      if (received.length === sent.length) socket.close(1000);
    });
    socket.once('error', reject);
    socket.once('close', (code) =>
      (code === 1000 && received.join(' ') === sent.join(' ')) || code === 1006
        ? resolve(code)
        : reject(new Error(`closed with ${code} after ${received.join(' ')}`)),
    );
    for (const message of sent) socket.send(message);
  });
}
