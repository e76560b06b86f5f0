// Network interface counters from /proc/net/dev.

export interface InterfaceCounters {
  name: string;
  receiveBytes: number;
  transmitBytes: number;
  receiveErrors: number;
  transmitErrors: number;
  receiveDrops: number;
  transmitDrops: number;
}

/**
 * Two header lines, then `  eth0: rxBytes rxPackets rxErrs rxDrop fifo frame compressed multicast
 * txBytes txPackets txErrs txDrop …`; the name may run into the first figure (`eth0:123`) when it is long.
 */
export function parseNetDev(text: string): InterfaceCounters[] {
  const interfaces: InterfaceCounters[] = [];
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const figures = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (name === '' || name.includes('|') || figures.length < 12) continue;
    interfaces.push({
      name,
      receiveBytes: figures[0]!,
      receiveErrors: figures[2]!,
      receiveDrops: figures[3]!,
      transmitBytes: figures[8]!,
      transmitErrors: figures[10]!,
      transmitDrops: figures[11]!,
    });
  }
  return interfaces;
}
