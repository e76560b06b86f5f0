// How many bits an operator-chosen secret (an admin key, a metrics token) carries, estimated as
// length × log2(size of the alphabet its characters come from): the figure is right for characters
// drawn at random from that alphabet, and too high for anything a person made up, so it refuses the
// short and the plain and cannot vouch for the rest. Generated secrets (certhub setup, `openssl rand
// -base64 32`) carry 256 bits.

/** The least a secret that guards the network may carry: out of reach of any guessing, online or not. */
export const minimumSecretBits = 128;

/** Character classes, each counted whole once a secret uses one of its characters. */
const classes: readonly { test: RegExp; size: number }[] = [
  { test: /[a-z]/, size: 26 },
  { test: /[A-Z]/, size: 26 },
  { test: /[0-9]/, size: 10 },
  // base64url's two besides letters and digits.
  { test: /[-_]/, size: 2 },
  // The rest of printable ASCII: the space and 31 punctuation marks.
  { test: /[ !"#$%&'()*+,./:;<=>?@[\\\]^`{|}~]/, size: 31 },
  // Anything else (other scripts, emoji) as one generous class: it is rare in a key, and never the only one.
  { test: /[^\x20-\x7e]/u, size: 128 },
];

/** The size of the alphabet `secret` looks drawn from: 10 for digits, 16 for hexadecimal in one case, else the classes it uses. */
function alphabetSize(secret: string): number {
  if (/^[0-9]+$/.test(secret)) return 10;
  if (/^[0-9a-f]+$/.test(secret) || /^[0-9A-F]+$/.test(secret)) return 16;
  return classes.reduce((size, { test, size: classSize }) => (test.test(secret) ? size + classSize : size), 0);
}

/** The estimate of the bits `secret` carries, rounded down. */
export function estimatedSecretBits(secret: string): number {
  const length = [...secret].length;
  return length === 0 ? 0 : Math.floor(length * Math.log2(alphabetSize(secret)));
}
