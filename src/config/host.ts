// The host config: which roles this machine plays, and how the supervisor and the log behave.
// `outpost run -c host.json` reads it; each role binary builds one with its own role alone. The
// schema is made from the roles a program knows (actors/registry.ts for outpost), so src/ names none.
import { z } from 'zod';
import type { RoleList } from './role.js';
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

export type SupervisorSettings = z.output<typeof supervisorSchema>;
export type LogSettings = z.output<typeof logSchema>;

export interface HostConfig {
  /** Each role's validated settings, by role name; a role left out is not run. */
  roles: Partial<Record<string, unknown>>;
  supervisor: SupervisorSettings;
  log: LogSettings;
}

export function hostConfigSchema(known: RoleList): z.ZodType<HostConfig, unknown> {
  const rolesShape = Object.fromEntries(known.map((role) => [role.name, role.schema.optional()]));
  return z.strictObject({
    roles: z
      .strictObject(rolesShape)
      .refine((roles) => Object.values(roles).some((value) => value !== undefined), { message: `must name at least one role (${known.map((role) => role.name).join(', ')})` })
      .superRefine((roles, context) => {
        for (const role of known) {
          if (roles[role.name] === undefined || role.checkHost === undefined) continue;
          for (const { path, message } of role.checkHost(roles)) context.addIssue({ code: 'custom', path, message });
        }
      }),
    supervisor: supervisorSchema.default(supervisorSchema.parse({})),
    log: logSchema.default(logSchema.parse({})),
  });
}

/** A host config running one role whose settings are validated already (a role binary's own config file). */
export function singleRoleHost(role: string, settings: unknown): HostConfig {
  return { roles: { [role]: settings }, supervisor: supervisorSchema.parse({}), log: logSchema.parse({}) };
}
