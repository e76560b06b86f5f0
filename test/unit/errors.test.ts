import { readFileSync } from 'node:fs';
import test from 'ava';
import { errorCodes, OutpostError, toOutpostError } from '../../src/errors.js';
import { projectPath } from '../helpers/process.js';

test('every error code is documented in docs/outpost.md with its status', (t) => {
  const readme = readFileSync(projectPath('docs/outpost.md'), 'utf8');
  for (const [code, { status }] of Object.entries(errorCodes)) {
    t.regex(readme, new RegExp(`\\| \`${code}\` \\| ${status} \\|`), `${code} is in the error table of docs/outpost.md`);
  }
});

test('errors cross threads as code and message and come back whole', (t) => {
  const original = new OutpostError('ERR_UNAVAILABLE', 'pool empty');
  const rebuilt = toOutpostError(structuredClone(original.toWire()));
  t.true(rebuilt instanceof OutpostError);
  t.is(rebuilt.code, 'ERR_UNAVAILABLE');
  t.is(rebuilt.status, 503);
  t.is(rebuilt.message, 'pool empty');
});

test('unknown failures become ERR_INTERNAL with their message', (t) => {
  const error = toOutpostError(new RangeError('boom'));
  t.is(error.code, 'ERR_INTERNAL');
  t.is(error.message, 'boom');
  t.is(toOutpostError({ code: 'ERR_MADE_UP', message: 'x' }).code, 'ERR_INTERNAL');
});
