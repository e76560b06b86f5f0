// Which PowerDNS versions get EXTEND/PRUNE: 4.9.12 and later 4.9.x, 5.0.2 and later
// 5.0.x, every release from 5.1 on; a pre-release counts as before its release, and whatever cannot
// be read is answered with REPLACE, which every server takes.
import test from 'ava';
import { supportsExtendPrune } from '../../../actors/cert/dns/providers/powerdns-version.js';

const supported = [
  '4.9.12',
  '4.9.13',
  '4.9.100',
  '5.0.2',
  '5.0.3',
  '5.0.10',
  '5.1.0',
  '5.1.3',
  '5.2.0',
  '6.0.0',
  '10.0.0',
  '6.0.0-alpha1',
  '5.1.1-rc1',
  '5.0.2+build7',
  ' 5.0.2\n',
];
const refused = [
  '4.7.3',
  '4.8.4',
  '4.9.0',
  '4.9.11',
  '4.9.0-alpha1',
  '4.9.12-rc1',
  '5.0.0',
  '5.0.1',
  '5.0.2-beta1',
  '5.1.0-alpha1',
  '4.10.0',
  '3.4.11',
  '0.0.1-12345.master.g1234567',
  '0.0.0',
  '',
  'unknown',
  '5',
  '5.1',
  'v5.1.0',
  '5.1.0.1',
  '5..1',
  '99999999.0.0',
];

for (const version of supported) {
  test(`${JSON.stringify(version)} takes EXTEND/PRUNE`, (t) => {
    t.true(supportsExtendPrune(version));
  });
}

for (const version of refused) {
  test(`${JSON.stringify(version)} gets REPLACE`, (t) => {
    t.false(supportsExtendPrune(version));
  });
}
