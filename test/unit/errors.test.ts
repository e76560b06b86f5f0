import { readFileSync } from 'node:fs';
import test from 'ava';
import { roles } from '../../actors/registry.js';
import { declareErrors, errorCodes, OutpostError, toOutpostError, type ErrorDeclaration } from '../../src/errors.js';
import { projectPath } from '../helpers/process.js';

/** The codes of src/errors.ts and every code a role of the registry declares. */
function everyCode(): [string, ErrorDeclaration][] {
  return [...Object.entries(errorCodes), ...roles.flatMap((role) => Object.entries(role.errors ?? {}))];
}

test("every error code, the roles' included, is documented in docs/outpost.md with its status", (t) => {
  const readme = readFileSync(projectPath('docs/outpost.md'), 'utf8');
  const codes = everyCode();
  t.true(
    codes.some(([code]) => !Object.hasOwn(errorCodes, code)),
    'the roles declare codes of their own',
  );
  for (const [code, { status }] of codes) {
    t.regex(readme, new RegExp(`\\| \`${code}\` \\| ${status} \\|`), `${code} is in the error table of docs/outpost.md`);
  }
});

test('no two roles declare one code', (t) => {
  const codes = everyCode().map(([code]) => code);
  t.deepEqual(
    codes.filter((code, index) => codes.indexOf(code) !== index),
    [],
  );
});

test('errors cross threads as code and message and come back whole', (t) => {
  const original = new OutpostError('ERR_UNAVAILABLE', 'pool empty');
  const rebuilt = toOutpostError(structuredClone(original.toWire()));
  t.true(rebuilt instanceof OutpostError);
  t.is(rebuilt.code, 'ERR_UNAVAILABLE');
  t.is(rebuilt.status, 503);
  t.is(rebuilt.message, 'pool empty');
});

test("a role's code keeps its status in a thread that has not loaded the role's declaration", (t) => {
  const { ERR_TEST_DECLARED } = declareErrors({ ERR_TEST_DECLARED: { status: 502, summary: 'a code this test declares' } });
  const declared = new OutpostError(ERR_TEST_DECLARED, 'upstream refused');
  t.is(declared.status, 502);
  t.like(declared.toWire(), { code: 'ERR_TEST_DECLARED', status: 502 });
  const elsewhere = toOutpostError({ code: 'ERR_TEST_NOT_LOADED_HERE', message: 'the provider refused', status: 504 });
  t.is(String(elsewhere.code), 'ERR_TEST_NOT_LOADED_HERE');
  t.is(elsewhere.status, 504);
  t.is(toOutpostError(structuredClone(elsewhere.toWire())).status, 504);
});

test('a role cannot declare a code of src/errors.ts or take one declared with another meaning', (t) => {
  t.throws(() => declareErrors({ ERR_NOT_FOUND: { status: 404, summary: 'no such resource' } }), { message: 'ERR_NOT_FOUND is declared twice' });
  declareErrors({ ERR_TEST_TWICE: { status: 500, summary: 'one meaning' } });
  t.notThrows(() => declareErrors({ ERR_TEST_TWICE: { status: 500, summary: 'one meaning' } }));
  t.throws(() => declareErrors({ ERR_TEST_TWICE: { status: 502, summary: 'another meaning' } }), { message: 'ERR_TEST_TWICE is declared twice' });
});

test('unknown failures become ERR_INTERNAL with their message', (t) => {
  const error = toOutpostError(new RangeError('boom'));
  t.is(error.code, 'ERR_INTERNAL');
  t.is(error.message, 'boom');
  t.is(toOutpostError({ code: 'ERR_MADE_UP', message: 'x' }).code, 'ERR_INTERNAL');
  t.is(toOutpostError({ code: 'ERR_MADE_UP', message: 'x', status: 200 }).code, 'ERR_INTERNAL');
  t.is(toOutpostError({ code: 'not a code', message: 'x', status: 502 }).code, 'ERR_INTERNAL');
});
