// Every config loader under JSON mutations: a valid config with one value replaced
// by any JSON, a key removed or an unknown key added is either accepted or refused with a
// ConfigError whose every problem names an option path and a rule; never another error.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { parseConfigJson } from '../../src/config/json-text.js';
import { validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { configLoaders, mutate, mutation } from '../helpers/config-mutations.js';
import { checkProperty } from '../helpers/fuzz.js';

/** A problem names where (an option path, or the config as a whole) and what is wrong, in one line without a stack. */
const problemShape = /^(the config|[\w][\w.-]*|\[\d+\]|\[".*?"\])(\.[\w][\w.-]*|\[\d+\]|\[".*?"\])* (is|must|cannot|has|names|needs|and|does|are|was) ./;

for (const { name, schema, valid } of configLoaders) {
  test(`${name}: the valid file is accepted`, (t) => {
    t.notThrows(() => validateConfig(schema, valid));
  });

  test(`${name}: one to three mutations are accepted, or refused naming an option path and a rule`, (t) => {
    checkProperty(
      t,
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (changes) => {
        const document = changes.reduce(mutate, valid);
        try {
          validateConfig(schema, document);
        } catch (error) {
          assert.ok(error instanceof ConfigError, `${String(error)} for ${JSON.stringify(document)}`);
          assert.ok(error.problems.length > 0);
          for (const problem of error.problems.flatMap((text) => text.split('\n'))) {
            assert.match(problem, problemShape, `for ${JSON.stringify(document)}`);
            assert.doesNotMatch(problem, /\n\s+at |\[object Object\]|undefined/, problem);
          }
        }
      }),
      400,
    );
  });
}

test('config text of any kind is JSON or refused with the line and column of the fault', (t) => {
  checkProperty(
    t,
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
      ),
      (text) => {
        try {
          parseConfigJson(text, 'host.json');
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          assert.match(error.problems[0] ?? '', /^host\.json is not valid JSON \(line \d+, column \d+\): \S/);
        }
      },
    ),
    500,
  );
});
