// A role binary's options become its role's slice of a host config; a problem with a value is reported
// under the option the person typed (`--port must be at most 65535`), not the config path it maps to.
import { hostConfigSchema, type HostConfig } from '../config/host.js';
import { validateConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { RoleDefinition } from '../config/role.js';

/** `settings` keys are the role's config keys; `flags` names the option that set each. */
export function hostConfigFromFlags(role: RoleDefinition, settings: Record<string, unknown>, flags: Record<string, string>): HostConfig {
  try {
    return validateConfig(hostConfigSchema([role]), { roles: { [role.name]: settings } });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.problems.map((problem) => {
        const match = new RegExp(`^roles\\.${role.name}\\.(\\w+)(?:\\[\\d+\\])? (.*)$`).exec(problem);
        const flag = match === null ? undefined : flags[match[1]!];
        return flag === undefined || match === null ? problem : `${flag} ${match[2]!}`;
      }),
    );
  }
}
