// The HTTP front's replica of certhub's domains: the panel's event stream shows a domain's changes in
// the order the owner made them, however the owner's answers and replica messages interleave.
import test from 'ava';
import type { DomainView, ReplicaMessage } from '../../../actors/cert/domains/protocol.js';
import { DomainReplica } from '../../../actors/cert/site/replica.js';

function view(changes: Partial<DomainView>): DomainView {
  return {
    name: 'app.example.test',
    label: 'app',
    target: '203.0.113.5',
    record_type: 'A',
    profile: null,
    status: 'pending',
    error: null,
    created_at: '2026-11-23T12:00:00.000Z',
    issued_at: null,
    expires_at: null,
    token: 'chd_one',
    last_fetch: null,
    names: [],
    wildcard_records: false,
    next_attempt_at: null,
    waiting_for: null,
    renewal: { due_at: null, basis: null },
    issued_by: null,
    own_key: false,
    csr: null,
    csr_wanted: false,
    ...changes,
  };
}

test('an add answer arriving after its replica messages does not step the status back', (t) => {
  const replica = new DomainReplica('example.test');
  const seen: string[] = [];
  replica.onChange((message: ReplicaMessage) => seen.push(message.type === 'domain' ? message.domain.status : 'removed'));
  replica.apply({ type: 'domain', domain: view({ status: 'pending' }), material: null });
  replica.apply({ type: 'domain', domain: view({ status: 'issuing' }), material: null });
  replica.applyView(view({ status: 'pending' }));
  t.is(replica.get('app')?.domain.status, 'issuing');
  t.deepEqual(seen, ['pending', 'issuing']);
});

test('an answer ahead of its replica messages is read at once but streamed in order from the messages', (t) => {
  const replica = new DomainReplica('example.test');
  const seen: string[] = [];
  replica.onChange((message: ReplicaMessage) => seen.push(message.type === 'domain' ? `${message.domain.status} ${message.domain.token}` : 'removed'));
  replica.applyView(view({ status: 'issuing' }));
  t.is(replica.get('app')?.domain.status, 'issuing', 'reads see the answer at once');
  replica.apply({ type: 'domain', domain: view({ status: 'pending' }), material: null });
  replica.apply({ type: 'domain', domain: view({ status: 'issuing' }), material: null });
  replica.applyView(view({ status: 'issuing', token: 'chd_two' }));
  t.is(replica.get('app.example.test')?.domain.token, 'chd_two', 'a rotated token is current at once');
  t.deepEqual(seen, ['pending chd_one', 'issuing chd_one']);
});

test("the replica says when the domains actor's loaded book has reached it, and streams no change for it", async (t) => {
  const replica = new DomainReplica('example.test');
  const seen: string[] = [];
  replica.onChange((message: ReplicaMessage) => seen.push(message.type));
  let loaded = false;
  void replica.loaded.then(() => {
    loaded = true;
  });
  replica.apply({ type: 'domain', domain: view({ status: 'issued' }), material: null });
  await Promise.resolve();
  t.false(loaded, 'a domain alone does not say the book is complete');
  replica.apply({ type: 'loaded' });
  await replica.loaded;
  t.true(loaded);
  t.is(replica.get('app')?.domain.status, 'issued');
  t.deepEqual(seen, ['domain']);
  // A restarted domains actor sends it again: nothing changes.
  replica.apply({ type: 'loaded' });
  t.deepEqual(seen, ['domain']);
});
