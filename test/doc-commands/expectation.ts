// What a document's shell command does when the documents test runs it.
//
// Every command line of every ```sh block in README.md, CONTRIBUTING.md and docs/ must have an entry
// in the table of its document (test/doc-commands/<document>.ts), unless the block belongs to a
// walkthrough (`<!-- doc-test: walkthrough NAME -->` above it): a walkthrough's blocks run together,
// in order, as one bash script in a network namespace of its own, so fixed ports are safe there.

/** A command the test runs: it exits with a code, or starts and prints a line, or is not run and says why. */
export type Expectation = ({ exit: number; prints?: RegExp } | { starts: RegExp } | { notRun: string }) & {
  /** Files written into the command's folder before it runs, beyond those the document declares. */
  files?: Record<string, string>;
  /** A server the command talks to, started first in the same network namespace and awaited at `ready` (a URL curl must fetch). */
  beside?: { command: string; ready: string };
  /** Run in the package's own folder, as a contributor types `npm run ...` there, instead of a fresh temp folder. Only for commands that change nothing in it. */
  inPackage?: true;
};

/** One document's commands, keyed by the command line as the test reads it (continuations joined). */
export type DocExpectations = Record<string, Expectation>;
