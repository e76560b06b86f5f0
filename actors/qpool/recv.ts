// The recv role (qpool serve): a diode receiver feeding the pool, the pool (memory, or encrypted
// files), and HTTP fronts serving one value per request.
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { recvSchema } from './config.js';
import { ConfigError } from '../../src/errors.js';
import { diodeReceiverActor } from './diode-receiver/kind.js';
import type { DiodeReceiverConfig } from './diode-receiver/protocol.js';
import { poolActor, poolStatusTopic } from './pool/kind.js';
import { takePoolKey } from './pool-key.js';
import type { PoolConfig } from './pool/protocol.js';
import { frontSpecs } from '../http-front/fronts.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { siteRef } from '../../src/http/site.js';
import { qpoolSite } from './site/kind.js';
import { qpoolErrorTable } from './error-codes.js';

/** The recv role's diode receiver, which a loopback diode in the same process hands batches to. */
export const recvReceiver = actorRef(diodeReceiverActor, 'recv/diode-receiver');
const recvPool = actorRef(poolActor, 'recv/pool');

export const recvRole: RoleDefinition<typeof recvSchema> = {
  name: 'recv',
  summary: 'quantum random pool server (qpool serve)',
  errors: qpoolErrorTable,
  schema: recvSchema,
  demoConfig: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true, max_entries: 10_000 } },
  claims: ({ server }) => ({
    ports: [{ ...server.listen, option: 'server.listen' }],
    stores: server.pool_file === undefined ? [] : [{ path: server.pool_file, what: 'pool file' }],
  }),
  async actors({ server }) {
    const passphrase = takePoolKey();
    if (server.pool_file !== undefined && passphrase === '') {
      // Starting would write a pool nobody can read, over the old one, at the first served value.
      throw new ConfigError([`server.pool_file is set but APP_POOL_KEY is empty: set APP_POOL_KEY to the pool passphrase (qpool setup recv prints a new one)`]);
    }
    const pool: PoolConfig = {
      capacity: server.max_entries,
      servedHistory: server.served_history,
      ...(server.pool_file === undefined ? {} : { poolFile: server.pool_file, passphrase }),
      rewriteAtJournalBytes: server.journal_limit_kib * 1024,
    };
    const receiver: DiodeReceiverConfig = {
      ...(server.receive_command === undefined || server.loopback ? {} : { command: [...server.receive_command] }),
      pool: recvPool,
      acceptDemo: server.accept_demo,
      quickEmptyMs: 1000,
      initialBackoffMs: 1000,
      maxBackoffMs: 30_000,
    };
    const { host, port } = server.listen;
    return [
      actorSpec(poolActor, { ref: recvPool, role: 'recv', config: pool, topics: [poolStatusTopic] }),
      actorSpec(diodeReceiverActor, { ref: recvReceiver, role: 'recv', config: receiver, links: [recvPool] }),
      ...(await frontSpecs({
        role: 'recv',
        threads: server.threads,
        config: { host, port, allowedHosts: server.allowed_hosts, site: siteRef(qpoolSite, { pool: recvPool, demo: server.accept_demo }) },
        links: [recvPool],
      })),
    ];
  },
};
