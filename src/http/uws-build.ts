// uWebSockets.js is a native addon with one binary per Node.js ABI (`process.versions.modules`) and
// platform, built against one C library. On a Node.js it has no binary for, every front fails at its
// first import of it and is restarted until the supervisor gives up on its role: seconds of crash
// lines, and under systemd a restart loop. Loading it once in the main thread before any actor starts
// turns that into one line that names the Node.js versions outpost runs on.
import { supportedNode } from '../version.js';

/** Why uWebSockets.js cannot load in this process, or undefined when it loads. */
export async function uwsLoadProblem(): Promise<string | undefined> {
  try {
    await import('uWebSockets.js');
    return undefined;
  } catch (error) {
    const runtime = `Node.js ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;
    return `uWebSockets.js cannot load on ${runtime}: ${loaderReason(error)}; outpost runs on Node.js ${supportedNode}`;
  }
}

/**
 * The loader's own reason: the package wraps it in a paragraph of its own (`This version of uWS.js
 * supports only ...`, which names versions of the package, not of outpost), and puts the loader's
 * error (`Error: Cannot find module './bin/uws_linux_x64_137.node'`, or `GLIBC_2.38' not found`)
 * in the last paragraph.
 */
function loaderReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lastParagraph = message.trim().split('\n\n').at(-1) ?? message;
  return (lastParagraph.split('\n')[0] ?? lastParagraph).replace(/^Error: /, '');
}
