import test from 'ava';
import {
  certificateKind,
  markExpiryNoticeSent,
  markFailed,
  markIssued,
  recordFetch,
  resumeAfterRestart,
  retry,
  rotateToken,
  startOrder,
  waitForBudget,
  type IssuedCertificate,
} from '../../../actors/cert/domains/logic.js';
import { newDomainRecord, type DomainRecord } from '../../../actors/cert/domains/record.js';
import { isDomainTokenShape, newDomainToken } from '../../../actors/cert/domains/token.js';
import { OutpostError } from '../../../src/errors.js';

const now = Date.parse('2025-01-01T00:00:00Z');

/** A domain as DomainBook.add makes it (test/cert/unit/cert-book-add.test.ts tests that path). */
function pendingDomain(): DomainRecord {
  return newDomainRecord({ name: 'app.example.com', label: 'app', target: '192.0.2.1', record_type: 'A', token: newDomainToken() }, now);
}

function code(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof OutpostError) return error.code;
    throw error;
  }
  throw new Error('expected an OutpostError');
}

const certificate: IssuedCertificate = {
  notBefore: Date.parse('2025-01-01T00:00:00Z'),
  notAfter: Date.parse('2025-04-01T00:00:00Z'),
  certId: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
  renewal: { dueAt: Date.parse('2025-03-01T00:00:00Z'), basis: 'lifetime', explanationUrl: undefined },
};

test('first issuance: pending -> issuing -> issued, a new certificate for the budget, renewal planned', (t) => {
  const pending = pendingDomain();
  t.is(certificateKind(pending), 'new');
  const waiting = waitForBudget(pending, now + 3_600_000);
  t.like(waiting.retry, { next_attempt_at: '2025-01-01T01:00:00.000Z', waiting_for: 'budget' });
  const issuing = startOrder(waiting);
  t.like(issuing, { status: 'issuing', retry: { next_attempt_at: null, waiting_for: null } });
  const issued = markIssued(issuing, certificate);
  t.like(issued, {
    status: 'issued',
    error: null,
    issued_at: '2025-01-01T00:00:00.000Z',
    expires_at: '2025-04-01T00:00:00.000Z',
    renewal: { due_at: '2025-03-01T00:00:00.000Z', basis: 'lifetime', cert_id: certificate.certId, ari_explanation_url: null },
  });
  t.is(certificateKind(issued), 'renewal');
  t.is(issued.token, pending.token, 'the token never changes on issuance');
});

test('failure and retry: the reason kept, failures counted, backoff until the retry; a success clears both', (t) => {
  const issuing = startOrder(pendingDomain());
  const failed = markFailed(issuing, 'CA refused: rateLimited', { at: now + 120_000, reason: 'backoff' });
  t.like(failed, {
    status: 'error',
    error: 'CA refused: rateLimited',
    retry: { failures: 1, next_attempt_at: '2025-01-01T00:02:00.000Z', waiting_for: 'backoff' },
  });
  const again = retry(failed);
  t.like(again, { status: 'pending', error: 'CA refused: rateLimited', retry: { failures: 1, next_attempt_at: null, waiting_for: null } });
  const twice = markFailed(startOrder(again), 'propagation timed out', { at: now + 600_000, reason: 'backoff' });
  t.is(twice.retry.failures, 2);
  const issued = markIssued(startOrder(retry(twice)), certificate);
  t.like(issued, { status: 'issued', error: null, retry: { failures: 0, next_attempt_at: null, waiting_for: null } });
});

test('renewal: issued -> issuing keeps the material fields until the new certificate; a failed renewal keeps them too', (t) => {
  const issued = markIssued(startOrder(pendingDomain()), certificate);
  const renewing = startOrder(issued);
  t.like(renewing, { status: 'issuing', issued_at: issued.issued_at, expires_at: issued.expires_at });
  const failed = markFailed(renewing, 'DNS provider refused the token', { at: now + 120_000, reason: 'backoff' });
  t.like(failed, { status: 'error', expires_at: issued.expires_at, renewal: { cert_id: certificate.certId } });
  const renewed = markIssued(startOrder(retry(failed)), {
    ...certificate,
    notBefore: Date.parse('2025-03-01T00:00:00Z'),
    notAfter: Date.parse('2025-05-30T00:00:00Z'),
    certId: 'next.id',
  });
  t.like(renewed, { status: 'issued', issued_at: '2025-03-01T00:00:00.000Z', expires_at: '2025-05-30T00:00:00.000Z', renewal: { cert_id: 'next.id' } });
});

test('transitions the table does not have are refused with ERR_CONFLICT', (t) => {
  const pending = pendingDomain();
  t.is(
    code(() => markIssued(pending, certificate)),
    'ERR_CONFLICT',
  );
  t.is(
    code(() => retry(pending)),
    'ERR_CONFLICT',
  );
  t.is(
    code(() => waitForBudget(startOrder(pending), now)),
    'ERR_CONFLICT',
  );
  t.is(
    code(() => startOrder(startOrder(pending))),
    'ERR_CONFLICT',
  );
});

test('restart: an order in flight starts again from pending; other states stay', (t) => {
  const pending = pendingDomain();
  t.is(resumeAfterRestart(startOrder(pending)).status, 'pending');
  t.is(resumeAfterRestart(pending), pending);
  const issued = markIssued(startOrder(pending), certificate);
  t.is(resumeAfterRestart(issued), issued);
});

test('rotate, fetch record, expiry notice', (t) => {
  const issued = markIssued(startOrder(pendingDomain()), certificate);
  const rotated = rotateToken(issued);
  t.not(rotated.token, issued.token);
  t.true(isDomainTokenShape(rotated.token));
  t.deepEqual(recordFetch(issued, now, '198.51.100.7').last_fetch, { at: '2025-01-01T00:00:00.000Z', from: '198.51.100.7' });
  t.is(markExpiryNoticeSent(issued).renewal.expiry_notice_for, issued.expires_at);
});
