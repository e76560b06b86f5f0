// Which served name an SNI or Host picks (proxy-front/server-names.ts): the exact name first, then the
// longest wildcard, one label only, as nginx matches server names.
import test from 'ava';
import { matchServerName } from '../../../actors/proxy/proxy-front/server-names.js';

const served = ['app.example.com', 'www.app.example.com', '*.app.example.com', '*.example.com'];

test('the exact name before any wildcard', (t) => {
  t.is(matchServerName('www.app.example.com', served), 'www.app.example.com');
  t.is(matchServerName('app.example.com', served), 'app.example.com');
});

test('the longest wildcard that matches one label', (t) => {
  t.is(matchServerName('x.app.example.com', served), '*.app.example.com');
  t.is(matchServerName('x.app.example.com', [...served].reverse()), '*.app.example.com');
  t.is(matchServerName('shop.example.com', served), '*.example.com');
});

test('a wildcard matches neither its parent nor two labels', (t) => {
  const wildcardOnly = ['*.app.example.com'];
  t.is(matchServerName('app.example.com', wildcardOnly), undefined);
  t.is(matchServerName('a.x.app.example.com', wildcardOnly), undefined);
  t.is(matchServerName('.app.example.com', wildcardOnly), undefined);
  t.is(matchServerName('xapp.example.com', wildcardOnly), undefined);
});
