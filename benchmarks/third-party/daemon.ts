// A long-running third-party server (PowerDNS, Pebble, Prometheus) that a benchmark or a test starts
// and stops itself. Unlike the tests' startProcess (test/helpers/process.ts) it is not tied to an ava
// context: benchmarks use it, and ava macros stop it in `finally`.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { reservePort } from '../../src/http/port.js';

export interface Daemon {
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  exited: Promise<number | NodeJS.Signals>;
  hasExited(): boolean;
  /** SIGTERM to its process group, SIGKILL if it is still there after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export function startDaemon(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Daemon {
  // Its own process group, so that stopping it also ends whatever it started.
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  let exitedYet = false;
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.on('error', (error) => {
      output += `\n${error.message}`;
      exitedYet = true;
      resolve(-1);
    });
    child.on('exit', (code, signal) => {
      exitedYet = true;
      resolve(code ?? signal ?? -1);
    });
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group has ended already.
    }
  };
  return {
    output: () => output,
    exited,
    hasExited: () => exitedYet,
    async stop(graceMs = 5000) {
      if (exitedYet) return;
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` every `intervalMs` until it returns true; fails with the daemon's output when the
 * daemon exits first or `timeoutMs` passes.
 */
export async function waitForDaemon(daemon: Daemon, name: string, probe: () => Promise<boolean>, timeoutMs = 20_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.hasExited()) throw new Error(`${name} exited before it was ready:\n${daemon.output()}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Runs `start`, which picks free ports and starts a daemon on them, again with new ports when the
 * daemon could not bind one: between picking a port and the daemon's bind, another process of the
 * machine may take it. Any other failure is the test's.
 */
export async function onFreshPorts<T>(start: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

/** A loopback port free for both TCP and UDP, as a DNS server needs both. */
export async function freeDnsPort(): Promise<number> {
  for (;;) {
    const port = await reservePort('127.0.0.1');
    if (await udpPortFree(port)) return port;
  }
}

function udpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ address: '127.0.0.1', port, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}
