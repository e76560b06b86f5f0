// The ACME choices of config.json read as certhub run reads them: named directories (the real URLs,
// an unknown name refused with the list), acme.eab (a bad HMAC key refused naming its option path;
// the CAs that need it refuse a config without it), acme.profile, acme.preferred_chain and
// acme.accept_terms; the profile rules of acme/profiles.ts; what a directory's meta says; a CA's short name.
import test from 'ava';
import { namedDirectories, resolveDirectoryUrl } from '../../../actors/cert/acme/directories.js';
import { directoryMetaOf } from '../../../actors/cert/acme/directory-meta.js';
import { caNameOf } from '../../../actors/cert/acme/named-directories.js';
import { hmacKeyProblem } from '../../../actors/cert/acme/eab.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { invalidProfile, profileProblem, profileToSend, readOfferedProfiles } from '../../../actors/cert/acme/profiles.js';
import { certConfigSchema } from '../../../actors/cert/config.js';
import { validateConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';

const schema = certConfigSchema({ demo: false });
const base = {
  base_domain: 'certs.example.com',
  admin_key: 'cha_0123456789abcdef0123456789abcdef',
  dns: { provider: 'cloudflare', api_token: 'cf-token', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' },
};
/** Pebble's own test key (test/config/pebble-config-external-account-bindings.json): 48 bytes, base64url. */
const goodKey = 'zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W';

function problems(acme: object): readonly string[] {
  try {
    validateConfig(schema, { ...base, acme });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

test('each directory name reads as its CA’s published URL', (t) => {
  const expected = {
    letsencrypt: 'https://acme-v02.api.letsencrypt.org/directory',
    'letsencrypt-staging': 'https://acme-staging-v02.api.letsencrypt.org/directory',
    zerossl: 'https://acme.zerossl.com/v2/DV90',
    google: 'https://dv.acme-v02.api.pki.goog/directory',
    'google-staging': 'https://dv.acme-v02.test-api.pki.goog/directory',
  };
  t.deepEqual(namedDirectories, expected);
  for (const [name, url] of Object.entries(expected)) {
    const eab = name.startsWith('letsencrypt') ? {} : { eab: { kid: 'kid-1', hmac_key: goodKey } };
    t.is(validateConfig(schema, { ...base, acme: { directory_url: name, ...eab } }).acme.directory_url, url, name);
    t.is(resolveDirectoryUrl(name), url);
  }
  t.is(resolveDirectoryUrl('https://ca.example.net/acme'), 'https://ca.example.net/acme');
});

test('an unknown directory name is refused with the names certhub knows', (t) => {
  t.deepEqual(problems({ directory_url: 'buypass' }), [
    'acme.directory_url "buypass" is not a CA certhub knows by name; must be an https:// URL of an ACME directory, or one of "letsencrypt", "letsencrypt-staging", "zerossl", "google", "google-staging"',
  ]);
  t.deepEqual(problems({ directory_url: 'http://ca.example.net/dir' }), [
    'acme.directory_url must be an https:// URL of an ACME directory, or one of "letsencrypt", "letsencrypt-staging", "zerossl", "google", "google-staging"',
  ]);
});

test('ZeroSSL and Google need acme.eab; another CA takes it too', (t) => {
  for (const name of ['zerossl', 'google', 'google-staging'])
    t.deepEqual(problems({ directory_url: name }), [
      `acme.eab is required by ${namedDirectories[name as keyof typeof namedDirectories]}: that CA registers an account only with the key identifier (kid) and HMAC key (hmac_key) it gives you`,
    ]);
  const config = validateConfig(schema, { ...base, acme: { directory_url: 'https://ca.example.net/dir', eab: { kid: 'kid-1', hmac_key: goodKey } } });
  t.deepEqual(config.acme.eab, { kid: 'kid-1', hmac_key: goodKey });
});

test('a bad EAB HMAC key is refused naming acme.eab.hmac_key', (t) => {
  t.deepEqual(problems({ eab: { kid: 'kid-1', hmac_key: 'not base64url!' } }), [
    'acme.eab.hmac_key must be the base64url text the CA gives (letters, digits, "-" and "_"), copied whole',
  ]);
  t.deepEqual(problems({ eab: { kid: 'kid-1', hmac_key: goodKey.slice(0, 20) } }), [
    'acme.eab.hmac_key decodes to 15 bytes, and an HS256 key has at least 32 (RFC 7518 §3.2): is it copied whole?',
  ]);
  t.deepEqual(problems({ eab: { kid: '', hmac_key: goodKey } }), ['acme.eab.kid must be at least 1 characters long']);
  t.is(hmacKeyProblem(goodKey), undefined);
  t.is(hmacKeyProblem(`${Buffer.alloc(32, 7).toString('base64url')}`), undefined);
  t.is(hmacKeyProblem(`${Buffer.alloc(33, 7).toString('base64')}`), undefined, 'padding is accepted');
});

test('acme.profile and acme.preferred_chain', (t) => {
  const config = validateConfig(schema, { ...base, acme: { profile: 'shortlived', preferred_chain: 'ISRG Root X2', key_type: 'ecdsa-p384' } });
  t.like(config.acme, { profile: 'shortlived', preferred_chain: 'ISRG Root X2', key_type: 'ecdsa-p384' });
  t.deepEqual(problems({ profile: 'short lived' }), ['acme.profile must be a profile name the CA lists, e.g. classic, tlsserver or shortlived']);
  t.is(validateConfig(schema, base).acme.profile, undefined);
});

test('profiles: read from meta.profiles, checked, sent only to a CA that lists them', (t) => {
  const offered = readOfferedProfiles({ classic: 'the usual', shortlived: 'https://letsencrypt.org/docs/profiles/#shortlived' });
  t.deepEqual(offered, { classic: 'the usual', shortlived: 'https://letsencrypt.org/docs/profiles/#shortlived' });
  for (const field of [null, undefined, 'classic', ['classic'], {}]) t.is(readOfferedProfiles(field), null);
  t.is(profileProblem('classic', offered), undefined);
  t.is(profileProblem('tlsserver', offered), 'the CA does not offer profile "tlsserver"; it offers classic and shortlived');
  t.is(profileProblem('tlsserver', null), 'the CA offers no profiles (its directory has no meta.profiles), so profile "tlsserver" cannot be chosen');
  t.is(profileToSend('shortlived', offered), 'shortlived');
  t.is(profileToSend('shortlived', null), undefined);
  t.is(profileToSend(undefined, offered), undefined);
  const error = t.throws(() => profileToSend('tlsserver', offered), { instanceOf: AcmeOrderError });
  t.is(error?.problemType, invalidProfile);
});

test('acme.accept_terms: false unless the config says true; a string is refused', (t) => {
  t.false(validateConfig(schema, base).acme.accept_terms);
  t.true(validateConfig(schema, { ...base, acme: { accept_terms: true } }).acme.accept_terms);
  t.deepEqual(problems({ accept_terms: 'yes' }), ['acme.accept_terms must be true or false']);
});

test("a directory's meta: the terms' URL, whether EAB is required, and the profiles; anything else is absent", (t) => {
  t.deepEqual(
    directoryMetaOf({
      newAccount: 'https://ca.example/new-acct',
      meta: { termsOfService: 'https://ca.example/terms.pdf', externalAccountRequired: true, profiles: { classic: 'the usual' } },
    }),
    { termsOfService: 'https://ca.example/terms.pdf', externalAccountRequired: true, profiles: { classic: 'the usual' } },
  );
  for (const directory of [{}, { meta: null }, { meta: { termsOfService: '', externalAccountRequired: 'true', profiles: [] } }, null, 'directory'])
    t.deepEqual(directoryMetaOf(directory), { termsOfService: undefined, externalAccountRequired: false, profiles: null }, JSON.stringify(directory));
});

test("a CA's short name: its name in the table, else its directory's host", (t) => {
  t.is(caNameOf(namedDirectories.letsencrypt), 'letsencrypt');
  t.is(caNameOf(namedDirectories['google-staging']), 'google-staging');
  t.is(caNameOf('https://ca.example.net:14000/dir'), 'ca.example.net:14000');
  t.is(caNameOf('not a url'), 'not a url');
});
