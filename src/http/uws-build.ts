// uWebSockets.js is a native addon with one binary per Node.js ABI (`process.versions.modules`) and
// platform, built against one C library. On a Node.js it has no binary for, every front fails at its
// first import of it and is restarted until the supervisor gives up on its role: seconds of crash
// lines, and under systemd a restart loop. Loading it once before any actor starts turns that into
// one line that names the Node.js versions outpost runs on. It is loaded in a thread of its own that
// ends at once, since the supervisor's thread never loads it (ARCHITECTURE.md).
import { Worker } from 'node:worker_threads';
import { supportedNode } from '../version.js';

/** Imports the module named by `workerData` and posts the failure's message, if any, then ends. */
const loadInThread = `const { parentPort, workerData } = require('node:worker_threads');
import(workerData).then(() => {}, (error) => parentPort.postMessage(error instanceof Error ? error.message : String(error)));`;

/** Why uWebSockets.js cannot load in this process, or undefined when it loads. */
export async function uwsLoadProblem(): Promise<string | undefined> {
  const failure = await new Promise<string | undefined>((resolve) => {
    let message: string | undefined;
    const worker = new Worker(loadInThread, { eval: true, workerData: import.meta.resolve('uWebSockets.js') });
    worker.on('message', (text: string) => (message = text));
    worker.on('error', (error) => (message = error.message));
    worker.on('exit', () => resolve(message));
  });
  if (failure === undefined) return undefined;
  const runtime = `Node.js ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;
  return `uWebSockets.js cannot load on ${runtime}: ${loaderReason(failure)}; outpost runs on Node.js ${supportedNode}`;
}

/**
 * The loader's own reason: the package wraps it in a paragraph of its own (`This version of uWS.js
 * supports only ...`, which names versions of the package, not of outpost), and puts the loader's
 * error (`Error: Cannot find module './bin/uws_linux_x64_137.node'`, or `GLIBC_2.38' not found`)
 * in the last paragraph.
 */
function loaderReason(message: string): string {
  const lastParagraph = message.trim().split('\n\n').at(-1) ?? message;
  return (lastParagraph.split('\n')[0] ?? lastParagraph).replace(/^Error: /, '');
}
