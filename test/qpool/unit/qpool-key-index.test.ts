// The pool's key index (actors/qpool/pool/key-index.ts) against a Map: any sequence of sets and
// deletes of 48-bit keys leaves the same contents, including keys that share their low bits and
// runs that wrap around the end of the table.
import test from 'ava';
import fc from 'fast-check';
import { KeyIndex } from '../../../actors/qpool/pool/key-index.js';

const key48 = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  // Keys alike in their low 32 bits, or in their high 16: a hash of one half alone would make long runs.
  fc.integer({ min: 0, max: 0xffff }).map((high) => high * 0x1_0000_0000 + 7),
  fc.integer({ min: 0, max: 64 }),
);

test('sets and deletes leave what a Map would hold', (t) => {
  // fc.assert throws with the shrunk counterexample when the property fails.
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), key48, fc.integer({ min: 0, max: 1000 })), { maxLength: 400 }), (operations) => {
        const index = new KeyIndex(400);
        const model = new Map<number, number>();
        for (const [isSet, key, value] of operations) {
          if (isSet) {
            index.set(key, value);
            model.set(key, value);
          } else {
            if (index.delete(key) !== model.delete(key)) return false;
          }
          if (index.size !== model.size) return false;
        }
        for (const [, key] of operations) if (index.get(key) !== model.get(key) || index.has(key) !== model.has(key)) return false;
        return true;
      }),
    ),
  );
});

test('a full index holds exactly its keys and refuses one more; clear empties it', (t) => {
  const index = new KeyIndex(1000);
  for (let key = 0; key < 1000; key++) index.set(key * 0x1_0000_0000, key);
  t.is(index.size, 1000);
  t.is(index.get(999 * 0x1_0000_0000), 999);
  t.throws(() => index.set(2 ** 47, 0), { message: 'a key index for 1000 keys is full' });
  index.set(5 * 0x1_0000_0000, 42);
  t.is(index.get(5 * 0x1_0000_0000), 42, 'a key already there is updated even when full');
  for (let key = 0; key < 1000; key += 2) t.true(index.delete(key * 0x1_0000_0000));
  for (let key = 0; key < 1000; key++) t.is(index.has(key * 0x1_0000_0000), key % 2 === 1);
  index.clear();
  t.is(index.size, 0);
  t.false(index.has(0x1_0000_0000));
});
