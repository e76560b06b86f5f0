// The host config: which roles this machine plays, and how the supervisor and the log behave.
// `outpost run -c host.json` reads it; each role binary builds one with its own role alone. The
// schema is made from the roles a program knows (actors/registry.ts for outpost), so src/ names none.
import { z } from 'zod';
import type { RoleList } from './role.js';
import { positiveInteger } from './rules.js';

const restartSchema = z
  .strictObject({
    max_restarts: z
      .number()
      .int()
      .min(0)
      .default(5)
      .describe('Restarts of one actor allowed within window_seconds; one more stops the role and the process exits non-zero.'),
    window_seconds: positiveInteger.default(60).describe('The window max_restarts counts restarts in.'),
    initial_backoff_ms: positiveInteger.default(100).describe("The delay before an actor's first restart, doubled for each restart still in the window."),
    max_backoff_ms: positiveInteger.default(10_000).describe('The longest delay before a restart.'),
  })
  .describe('How an actor that throws or exits is restarted (one-for-one, with exponential backoff).');

export const supervisorSchema = z
  .strictObject({
    ready_timeout_ms: positiveInteger.default(10_000).describe('How long each actor has to say it is ready at start; past it, the start fails.'),
    shutdown_grace_ms: positiveInteger
      .default(5_000)
      .describe('How long SIGTERM or SIGINT waits for in-flight requests and stores to finish before the process exits.'),
    restart: restartSchema.default(restartSchema.parse({})),
    metrics_interval_ms: z
      .number()
      .int()
      .min(0)
      .default(5000)
      .describe("How often every thread pushes its figures to the fronts' /metrics; 0 turns metrics off (/metrics answers 404)."),
    control_socket: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The local socket `outpost status` asks (mode 0600). Default: $RUNTIME_DIRECTORY/control.sock (systemd), else $XDG_RUNTIME_DIR/outpost.sock, else /tmp/outpost-<uid>/control.sock.',
      ),
  })
  .describe('How the supervisor starts, restarts and stops the actors, and serves its status.');

export const logSchema = z
  .strictObject({
    level: z.enum(['error', 'warn', 'info', 'debug']).default('info').describe('The least severe records logged.'),
    json: z.boolean().default(false).describe('Write records as JSON lines (for log collectors) instead of text.'),
    file: z.string().min(1).optional().describe('Also append every record to this file.'),
  })
  .describe('The log: to standard error, and to a file when one is named.');

export type SupervisorSettings = z.output<typeof supervisorSchema>;
export type LogSettings = z.output<typeof logSchema>;

export interface HostConfig {
  /** Each role's validated settings, by role name; a role left out is not run. */
  roles: Partial<Record<string, unknown>>;
  supervisor: SupervisorSettings;
  log: LogSettings;
}

export function hostConfigSchema(known: RoleList): z.ZodType<HostConfig, unknown> {
  const rolesShape = Object.fromEntries(known.map((role) => [role.name, role.schema.describe(`The ${role.name} role: ${role.summary}.`).optional()]));
  return z.strictObject({
    roles: z
      .strictObject(rolesShape)
      .describe('The roles this machine plays, each with its settings; at least one. A role left out is not run.')
      .refine((roles) => Object.values(roles).some((value) => value !== undefined), {
        message: `must name at least one role (${known.map((role) => role.name).join(', ')})`,
      })
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
