import type { LogFields } from './record.js';

// Field names whose values never reach a log, whoever wrote the record.
const secretFieldPattern = /(token|secret|passphrase|password|api_?key|authorization|private_?key|cookie)/i;

export const redactedValue = '[redacted]';

export function redactFields(fields: LogFields): LogFields {
  let redacted: LogFields | undefined;
  for (const name of Object.keys(fields)) {
    if (secretFieldPattern.test(name)) {
      redacted ??= { ...fields };
      redacted[name] = redactedValue;
    }
  }
  return redacted ?? fields;
}
