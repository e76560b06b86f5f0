// The recv role (qpool serve): a diode receiver feeding the pool, the pool (memory, or encrypted
// files), and HTTP fronts serving one value per request.
import { actorEntry, type ActorSpec } from '../actor/spec.js';
import { recvSchema } from '../config/qpool.js';
import { ConfigError } from '../errors.js';
import { reservePort } from '../http/port.js';
import type { DiodeReceiverConfig } from '../../actors/diode-receiver/protocol.js';
import type { HttpFrontConfig } from '../../actors/http-front/protocol.js';
import type { PoolConfig } from '../../actors/pool/protocol.js';
import type { RoleDefinition } from './role.js';

export const recvRole: RoleDefinition<typeof recvSchema> = {
  name: 'recv',
  summary: 'quantum random pool server (qpool serve)',
  schema: recvSchema,
  demoConfig: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true, max_entries: 10_000 } },
  claims: ({ server }) => ({
    ports: [{ ...server.listen, option: 'server.listen' }],
    stores: server.pool_file === undefined ? [] : [{ path: server.pool_file, what: 'pool file' }],
  }),
  async actors({ server }) {
    if (server.pool_file !== undefined && (process.env.APP_POOL_KEY ?? '') === '') {
      // Starting would write a pool nobody can read, over the old one, at the first served value.
      throw new ConfigError([`server.pool_file is set but APP_POOL_KEY is empty: set APP_POOL_KEY to the pool passphrase (qpool setup recv prints a new one)`]);
    }
    const pool: PoolConfig = {
      capacity: server.max_entries,
      servedHistory: server.served_history,
      ...(server.pool_file === undefined ? {} : { poolFile: server.pool_file }),
      rewriteAtJournalBytes: server.journal_limit_kib * 1024,
    };
    const receiver: DiodeReceiverConfig = {
      ...(server.receive_command === undefined || server.loopback ? {} : { command: [...server.receive_command] }),
      pool: 'recv/pool',
      acceptDemo: server.accept_demo,
      quickEmptyMs: 1000,
      initialBackoffMs: 1000,
      maxBackoffMs: 30_000,
    };
    const { host } = server.listen;
    // Several fronts share the port through SO_REUSEPORT, which needs a concrete port for all of them.
    const port = server.listen.port === 0 && server.threads > 1 ? await reservePort(host) : server.listen.port;
    const front: HttpFrontConfig = { host, port, site: { kind: 'qpool', pool: 'recv/pool', demo: server.accept_demo } };
    const fronts = Array.from({ length: server.threads }, (_, index): ActorSpec => ({
      name: server.threads === 1 ? 'recv/http-front' : `recv/http-front#${index + 1}`,
      kind: 'http-front',
      instance: index + 1,
      role: 'recv',
      entry: actorEntry('http-front'),
      config: front,
      front: true,
      links: ['recv/pool'],
    }));
    const common = { instance: 1, role: 'recv', front: false } as const;
    return [
      { ...common, name: 'recv/pool', kind: 'pool', entry: actorEntry('pool'), config: pool, links: [] },
      { ...common, name: 'recv/diode-receiver', kind: 'diode-receiver', entry: actorEntry('diode-receiver'), config: receiver, links: ['recv/pool'] },
      ...fronts,
    ];
  },
};
