// The modules `npm run mutate -- MODULE` mutates: the code that carries a guarantee, each with the unit
// test files that cover it. Only unit files run against the mutants, a few seconds each, so that a run
// takes minutes: a mutant that only an integration test would catch survives here, and it is the unit
// tests that should catch it.

export interface MutationModule {
  /** What the module guarantees, as `npm run mutate` lists it. */
  covers: string;
  /** Files (or `file:from-to` line ranges) Stryker mutates, from the package root. */
  mutate: readonly string[];
  /** The unit test files run against each mutant, as compiled under dist/. */
  tests: readonly string[];
}

/** A unit test file as compiled: the core's in dist/test/unit/, a role's in dist/test/<role>/unit/. */
const unit = (name: string, role?: string) => `dist/test/${role === undefined ? '' : `${role}/`}unit/${name}.test.js`;

export const mutationModules: Readonly<Record<string, MutationModule>> = {
  'allowed-hosts': {
    covers: 'the Host names a front answers (DNS rebinding)',
    mutate: ['src/http/allowed-hosts.ts'],
    tests: [unit('http-allowed-hosts')],
  },
  admission: {
    covers: 'what runs before a handler: rate limits, failure allowances, per-client slots, Retry-After',
    mutate: ['src/http/admission.ts', 'src/http/rate-limit.ts', 'src/http/client-slots.ts', 'src/http/retry-after.ts'],
    tests: [unit('http-admission'), unit('rate-limit'), unit('http-client-slots'), unit('retry-after')],
  },
  'proxy-framing': {
    covers: "what the proxy forwards: a request head's grammar, its body framing, the backend's headers, the backend's response head",
    mutate: [
      'actors/proxy/proxy-front/forwardable-request.ts',
      'actors/proxy/proxy-front/http-grammar.ts',
      'actors/proxy/proxy-front/response-parser.ts',
      'src/http/request-framing.ts',
      // connectionTokens and backendRequestHeaders: the head the backend receives.
      'actors/proxy/proxy-front/logic.ts:45-90',
    ],
    tests: [
      unit('proxy-forwardable-request', 'proxy'),
      unit('proxy-http-grammar', 'proxy'),
      unit('proxy-request-framing', 'proxy'),
      unit('proxy-response-parser', 'proxy'),
      unit('fuzz-response-parser', 'proxy'),
      unit('proxy-logic', 'proxy'),
    ],
  },
  pool: {
    covers: 'the qpool pool: each value served once, the journal and snapshot it is rebuilt from',
    mutate: [
      'actors/qpool/pool/logic.ts',
      'actors/qpool/pool/memory.ts',
      'actors/qpool/pool/holders.ts',
      'actors/qpool/pool/key-index.ts',
      'actors/qpool/values/batch.ts',
      'actors/qpool/pool/codec.ts',
      'actors/qpool/pool/restore.ts',
      'actors/qpool/pool/pool-files.ts',
    ],
    tests: [
      unit('qpool-pool', 'qpool'),
      unit('qpool-pool-memory', 'qpool'),
      unit('qpool-held-values', 'qpool'),
      unit('qpool-key-index', 'qpool'),
      unit('qpool-pool-client', 'qpool'),
      unit('qpool-pool-metrics', 'qpool'),
      unit('fuzz-pool-files', 'qpool'),
    ],
  },
  book: {
    covers: "the cert role's book of domains: adding, removing, renewing, limits, backoff",
    mutate: [
      'actors/cert/domains/book.ts',
      'actors/cert/domains/lifecycle.ts',
      'actors/cert/domains/renewals.ts',
      'actors/cert/domains/renewal-plan.ts',
      'actors/cert/domains/backoff.ts',
      'actors/cert/domains/limits.ts',
      'actors/cert/domains/names.ts',
    ],
    tests: [
      unit('cert-book-add', 'cert'),
      unit('cert-book-ari', 'cert'),
      unit('cert-book-budget', 'cert'),
      unit('cert-book-removed', 'cert'),
      unit('cert-book-renewal', 'cert'),
      unit('cert-book-write-failures', 'cert'),
      unit('cert-domain-limits', 'cert'),
      unit('cert-domain-logic', 'cert'),
      unit('cert-domain-model', 'cert'),
      unit('cert-refusal-retry', 'cert'),
      unit('cert-retry-after', 'cert'),
      unit('cert-retry-now', 'cert'),
    ],
  },
  renewal: {
    covers: 'when a certificate is renewed: its facts, ARI windows, Retry-After, the scheduler',
    mutate: ['actors/cert/renewal/*.ts'],
    tests: [unit('cert-renewal', 'cert'), unit('cert-ari', 'cert'), unit('cert-refusal-retry', 'cert'), unit('cert-demo', 'cert')],
  },
  budget: {
    covers: "the CA budget: counting orders, the book's gate, budget.json",
    mutate: ['actors/cert/domains/budget.ts'],
    tests: [unit('cert-book-budget', 'cert'), unit('cert-pacing', 'cert'), unit('cert-budget-ledger', 'cert')],
  },
};
