// Who a command of the CLI acts as, recorded as the actor of what it writes: `--actor` when given,
// else the operating-system user running it (`strata-cli:<user>`).
import { userInfo } from 'node:os';

/** The help line of `--actor`. */
export const actorOptionHelp = '--actor: who acts, as recorded in the audit (default strata-cli:<user>)';

/** The actor of a command: `given` (trimmed) unless blank, else `strata-cli:<user>`. */
export function cliActor(given: string | undefined): string {
  const named = given?.trim();
  if (named !== undefined && named !== '') return named;
  try {
    return `strata-cli:${userInfo().username}`;
  } catch {
    return 'strata-cli';
  }
}
