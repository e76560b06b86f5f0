// /api/spec of hostwatch: OpenAPI 3.1, with the inner shapes of the snapshot (actors/monitor/sampler/protocol.ts).
import { operationsPaths } from '../../../src/http/operations-openapi.js';
import { versionPath } from '../../../src/http/version-route.js';

const number = { type: 'number' } as const;
const integer = { type: 'integer' } as const;
const string = { type: 'string' } as const;
const boolean = { type: 'boolean' } as const;
const percent = { type: 'number', minimum: 0, maximum: 100 } as const;

function object(properties: Record<string, unknown>, description?: string) {
  return { type: 'object', required: Object.keys(properties), properties, ...(description === undefined ? {} : { description }) };
}

const historyPoint = object({ t: { ...number, description: 'seconds since the epoch' }, v: percent });
const epochSeconds = { ...number, description: 'seconds since the epoch' };
const bytesPerSecond = { ...integer, minimum: 0, description: 'bytes a second over the last interval' };

const containerProcess = object({ container: string, image: string, pid: integer, user: string, command: string, cpuPercent: number, memoryBytes: integer });
const containerList = {
  type: 'array',
  items: { $ref: '#/components/schemas/ContainerProcess' },
};

const snapshotSchema = object({
  timestamp: { ...number, description: 'seconds since the epoch, fractional' },
  machine: object({
    hostname: string,
    os: string,
    kernel: string,
    platform: string,
    arch: string,
    cpuModel: string,
    physicalCores: integer,
    logicalCores: integer,
    totalMemoryBytes: integer,
    uptimeSeconds: integer,
    containerRuntime: {
      oneOf: [
        object({ available: { const: true }, name: { enum: ['docker', 'podman'] }, version: string }),
        object({ available: { const: false }, reason: string }),
      ],
    },
  }),
  cpu: object({
    percent,
    perCore: { type: 'array', items: percent, description: 'one entry per logical core' },
    load: { type: 'array', items: number, minItems: 3, maxItems: 3, description: 'load average over 1, 5 and 15 minutes' },
    history: { type: 'array', items: historyPoint, description: 'aggregate percent over the last 2 minutes, oldest first' },
  }),
  memory: object({
    totalBytes: integer,
    usedBytes: { ...integer, description: 'total minus available (page cache excluded)' },
    availableBytes: integer,
    percent,
    swap: { oneOf: [{ type: 'null' }, object({ totalBytes: integer, usedBytes: integer, percent })], description: 'null when no swap is configured' },
    breakdown: { oneOf: [{ type: 'null' }, object({ activeBytes: integer, wiredBytes: integer, compressedBytes: integer })], description: 'macOS only' },
    history: { type: 'array', items: historyPoint },
  }),
  filesystems: {
    type: 'array',
    description:
      'mounted filesystems that hold data, one per device: pseudo filesystems, tmpfs, devtmpfs and bind mounts left out, as `df -x tmpfs -x devtmpfs` lists them (Linux)',
    items: object({
      mountPoint: string,
      device: string,
      type: string,
      usedBytes: integer,
      totalBytes: integer,
      percent: { ...percent, description: 'used of used plus available, as df counts it' },
      history: { type: 'array', items: historyPoint, description: 'percent over the last 2 minutes, oldest first' },
    }),
  },
  disks: {
    type: 'array',
    description: 'block devices that have done any I/O since boot, from /proc/diskstats (Linux)',
    items: object({
      name: string,
      readBytesPerSecond: bytesPerSecond,
      writeBytesPerSecond: bytesPerSecond,
      history: {
        type: 'array',
        items: object({ t: epochSeconds, read: bytesPerSecond, write: bytesPerSecond }),
        description: 'the last 2 minutes, oldest first',
      },
    }),
  },
  interfaces: {
    type: 'array',
    description: 'network interfaces from /proc/net/dev, by name, loopback last (Linux)',
    items: object({
      name: string,
      loopback: boolean,
      receiveBytesPerSecond: bytesPerSecond,
      transmitBytesPerSecond: bytesPerSecond,
      receiveErrors: { ...integer, description: 'since the interface came up' },
      transmitErrors: integer,
      receiveDrops: integer,
      transmitDrops: integer,
      history: {
        type: 'array',
        items: object({ t: epochSeconds, receive: bytesPerSecond, transmit: bytesPerSecond }),
        description: 'the last 2 minutes, oldest first',
      },
    }),
  },
  temperatures: {
    type: 'array',
    description: 'hwmon temperature sensors (/sys/class/hwmon); empty on a machine without any',
    items: object({
      chip: { ...string, description: 'the hwmon chip name: coretemp, k10temp, nvme' },
      label: { ...string, description: "the driver's label, or the sensor file name (temp1) when it gives none" },
      celsius: number,
      criticalCelsius: { type: ['number', 'null'], description: "the driver's critical threshold; null when it states none" },
    }),
  },
  processes: {
    type: 'array',
    description: 'top rows by CPU + memory share; processes with the same parent and name form one row',
    items: object({
      name: string,
      count: integer,
      pids: { type: 'array', items: integer },
      cpuPercent: { ...number, description: 'percent of one core, summed over the row' },
      memoryBytes: integer,
      memoryPercent: percent,
      source: { ...string, description: 'user name, or container name when container is true' },
      container: boolean,
      runtime: { oneOf: [{ type: 'null' }, object({ name: { enum: ['python', 'node', 'ruby', 'perl', 'java'] }, version: string })] },
    }),
  },
  containers: containerList,
  network: {
    type: 'array',
    description: 'TCP sockets in LISTEN state not bound only to loopback',
    items: object({ port: integer, address: string, protocol: { enum: ['tcp', 'tcp6'] }, process: string, pid: { type: ['integer', 'null'] } }),
  },
});

/** `containers` once more under the runtime's name, the key the original dashboard's clients read. */
const servedSnapshotSchema = {
  ...snapshotSchema,
  properties: {
    ...snapshotSchema.properties,
    docker: { ...containerList, description: 'the same list as containers, when docker is the runtime found or none is' },
    podman: { ...containerList, description: 'the same list as containers, when podman is the runtime found' },
  },
};

const errorSchema = object({ error: string });

export function monitorOpenApi(version: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'hostwatch', version, description: 'Live dashboard of the machine it runs on.' },
    paths: {
      '/': { get: { summary: 'The dashboard page', responses: { 200: { description: 'HTML', content: { 'text/html': {} } } } } },
      '/api/snapshot': {
        get: {
          summary: 'The current state of the machine',
          responses: {
            200: { description: 'snapshot', content: { 'application/json': { schema: { $ref: '#/components/schemas/Snapshot' } } } },
            503: { description: 'the sampler is restarting', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          },
        },
      },
      '/api/stream': {
        get: {
          summary: 'Server-Sent Events: `event: snapshot` with a Snapshot as data, at once on connect and then every 2 seconds',
          responses: { 200: { description: 'event stream', content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/Snapshot' } } } } },
        },
      },
      ...versionPath('hostwatch'),
      '/api/spec': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': {} } } } } },
      ...operationsPaths(),
    },
    components: { schemas: { Snapshot: servedSnapshotSchema, ContainerProcess: containerProcess, Error: errorSchema } },
  };
}
