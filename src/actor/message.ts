// The shape every message on a port has: a discriminated union keyed on `type`.
export interface Message {
  readonly type: string;
}

/** The `default` branch of an exhaustive switch: reaching it means a sender and a receiver disagree. */
export function unexpectedMessage(where: string, message: never): never {
  throw new Error(`${where}: this should not happen: unknown message ${JSON.stringify(message)}`);
}
