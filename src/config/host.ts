// The host config: which roles this machine plays, and how the supervisor and the log behave.
// `outpost run -c host.json` reads it; each role binary builds one with a single role.
import { z } from 'zod';
import { version } from '../version.js';
import { implementedRoles, plannedRoles } from '../../actors/registry.js';
import { roleNames, type RoleName } from './role.js';
import { positiveInteger } from './rules.js';

const restartSchema = z.strictObject({
  max_restarts: z.number().int().min(0).default(5),
  window_seconds: positiveInteger.default(60),
  initial_backoff_ms: positiveInteger.default(100),
  max_backoff_ms: positiveInteger.default(10_000),
});

export const supervisorSchema = z.strictObject({
  ready_timeout_ms: positiveInteger.default(10_000),
  shutdown_grace_ms: positiveInteger.default(5_000),
  restart: restartSchema.default(restartSchema.parse({})),
  /** How often every thread pushes its figures to the fronts' /metrics; 0 turns metrics off. */
  metrics_interval_ms: z.number().int().min(0).default(5000),
  /** The local socket `outpost status` asks (mode 0600); see src/actor/control-socket.ts for the default. */
  control_socket: z.string().min(1).optional(),
});

export const logSchema = z.strictObject({
  level: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  json: z.boolean().default(false),
  file: z.string().min(1).optional(),
});

function roleSchema(name: RoleName): z.ZodType {
  const implemented = implementedRoles[name];
  if (implemented !== undefined) return implemented.schema.optional();
  return z.unknown().optional().superRefine((value, context) => {
    if (value === undefined) return;
    context.addIssue({ code: 'custom', message: `is not implemented in outpost ${version} yet (${plannedRoles[name].summary})` });
  });
}

const rolesShape = Object.fromEntries(roleNames.map((name) => [name, roleSchema(name)])) as Record<RoleName, z.ZodType>;

export const hostConfigSchema = z.strictObject({
  roles: z
    .strictObject(rolesShape)
    .refine((roles) => Object.values(roles).some((value) => value !== undefined), { message: `must name at least one role (${roleNames.join(', ')})` })
    .superRefine((roles, context) => {
      const send = roles.send as { diode?: { loopback?: boolean } } | undefined;
      const recv = roles.recv as { server?: { loopback?: boolean } } | undefined;
      if (send?.diode?.loopback === true && recv?.server?.loopback !== true) {
        context.addIssue({ code: 'custom', path: ['send', 'diode', 'loopback'], message: 'needs a recv role with server.loopback true in the same host config' });
      }
    }),
  supervisor: supervisorSchema.default(supervisorSchema.parse({})),
  log: logSchema.default(logSchema.parse({})),
});

export type HostConfig = z.output<typeof hostConfigSchema>;
export type SupervisorSettings = z.output<typeof supervisorSchema>;
