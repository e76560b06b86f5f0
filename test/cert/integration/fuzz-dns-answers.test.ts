// The answers the propagation check reads, made garbage: a nameserver on a loopback
// port answers each question with random bytes, a cut packet, the wrong id or question, a UDP answer
// with TC then garbage over TCP, or an answer from another address, each carrying the value waited
// for when it parses. Property: the wait never takes it as propagated, never throws anything but
// ERR_DNS_PROPAGATION naming the server and what it said, and the process stays up (an uncaught
// error would end this ava worker).
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { OutpostError } from '../../../src/errors.js';
import { startGarbageNameserver, type Garbage, type TcpGarbage } from '../fixtures/dns/garbage-nameserver.js';
import { checkAsyncProperty, fuzzSeed } from '../../helpers/fuzz.js';
import { certErrors } from '../../../actors/cert/error-codes.js';

const name = '_acme-challenge.app.example.test';
/** Short: every run waits for its deadline, a garbage answer being never taken. */
const wait = { timeoutMs: 300, intervalMs: 50 };
const queryTimeoutMs = 150;

const bytes = (maxLength: number) => fc.uint8Array({ minLength: 1, maxLength }).map((array) => Buffer.from(array));

const tcpGarbage: fc.Arbitrary<TcpGarbage> = fc.oneof(
  fc.record({ kind: fc.constant('random' as const), bytes: bytes(600) }),
  fc.record({ kind: fc.constant('huge-prefix' as const), bytes: bytes(600) }),
  fc.constantFrom<TcpGarbage>({ kind: 'wrong-id' }, { kind: 'wrong-question' }, { kind: 'not-a-response' }, { kind: 'close' }),
);

export const garbageAnswer: fc.Arbitrary<Garbage> = fc.oneof(
  fc.record({ kind: fc.constant('random' as const), bytes: bytes(1500) }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
  fc.constantFrom<Garbage>({ kind: 'wrong-id' }, { kind: 'wrong-question' }, { kind: 'not-a-response' }, { kind: 'other-address' }),
  fc.record({ kind: fc.constant('truncated-then' as const), tcp: tcpGarbage }),
);

test("the double's honest answer is taken: what the property refuses is the garbage, not the double", async (t) => {
  const server = await startGarbageNameserver();
  try {
    server.value = 'honest-value';
    // Deadlines of the production kind: an honest answer ends the wait as it comes, so they cost
    // nothing, while the short ones above (150 ms a query) failed this once on a loaded machine.
    await t.notThrowsAsync(
      new AuthoritativeDns({ nameservers: [server.nameserver], queryTimeoutMs: 5_000 }).waitForTxt(name, server.value, { timeoutMs: 30_000, intervalMs: 50 }),
    );
  } finally {
    await server.close();
  }
});

/**
 * Every run waits out its deadline (a garbage answer is never taken): 80 runs one after the other
 * were 28 s of a 29 s file spent waiting. They run in shards side by side, each with its own
 * nameserver and seed (fuzzSeed + shard), as fast-check reports it when one fails.
 */
const shards = 8;
const runsPerShard = 10;

test('a nameserver answering garbage is never taken as propagated: the wait ends in ERR_DNS_PROPAGATION naming it', async (t) => {
  await Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      const server = await startGarbageNameserver();
      try {
        const dns = new AuthoritativeDns({ nameservers: [server.nameserver], queryTimeoutMs });
        const property = fc.asyncProperty(garbageAnswer, fc.stringMatching(/^[\w-]{8,43}$/), async (garbage, value) => {
          server.garbage = garbage;
          server.value = value;
          const asked = server.questions();
          const outcome = await dns.waitForTxt(name, value, wait).then(
            () => 'taken as propagated',
            (error: unknown) => error,
          );
          assert.ok(server.questions() > asked, 'the server was asked');
          assert.ok(outcome instanceof OutpostError, `${garbage.kind}: ${String(outcome)}`);
          assert.equal(outcome.code, 'ERR_DNS_PROPAGATION');
          assert.match(
            outcome.message,
            new RegExp(`^TXT ${name.replaceAll('.', '\\.')} = "${value}" was not answered within ${wait.timeoutMs} ms by 127\\.0\\.0\\.1:\\d+ \\(`),
          );
          assert.doesNotMatch(outcome.message, /\n\s+at /, 'no stack trace in the reason');
        });
        await checkAsyncProperty(t, property, runsPerShard, { seed: fuzzSeed + shard });
      } finally {
        await server.close();
      }
    }),
  );
});

// Regressions the property found (seed 2028), each a way the check took a forged or stray answer for
// the record being there: kept as examples so they are checked on every run.
const neverTaken = test.macro(async (t, garbage: Garbage) => {
  const server = await startGarbageNameserver();
  try {
    server.garbage = garbage;
    server.value = 'forged-value';
    const dns = new AuthoritativeDns({ nameservers: [server.nameserver], queryTimeoutMs });
    const error = await t.throwsAsync(dns.waitForTxt(name, server.value, wait), { instanceOf: OutpostError });
    t.is(error?.code, certErrors.ERR_DNS_PROPAGATION);
  } finally {
    await server.close();
  }
});

test('an answer over TCP that is a query, not a response, is not taken (seed 2028)', neverTaken, { kind: 'truncated-then', tcp: { kind: 'not-a-response' } });
test('an answer over TCP to another question is not taken (seed 2028)', neverTaken, { kind: 'truncated-then', tcp: { kind: 'wrong-question' } });
test('an answer over UDP to another question is not taken (seed 2028)', neverTaken, { kind: 'wrong-question' });
test('an answer over UDP from another address than the server asked is not taken (seed 2028)', neverTaken, { kind: 'other-address' });
