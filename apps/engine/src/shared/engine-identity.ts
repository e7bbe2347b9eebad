// Who this engine is among the engines sharing a store: its id is recorded on the attempts it
// starts (event metadata `engine`), so that at start-up it ends only the attempts it left open
// itself. Without a configured id (`STRATA_ENGINE_ID`) its id names the host and the process,
// and it assumes it is alone on its store: at start-up it ends every attempt left open, as a
// single engine always did.
import { hostname } from 'node:os';

export interface EngineIdentity {
  readonly id: string;
  /** True when the id was configured: start-up recovery then ends only this engine's attempts. */
  readonly configured: boolean;
}

/** The metadata key that names the engine which started an attempt. */
export const ENGINE_METADATA_KEY = 'engine';

export function engineIdentityOf(configuredId: string | undefined): EngineIdentity {
  return configuredId !== undefined && configuredId !== ''
    ? { id: configuredId, configured: true }
    : { id: `${hostname()}:${process.pid}`, configured: false };
}

/** The engine that started an attempt, from its start event's metadata (undefined: not recorded). */
export function engineOfMetadata(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const engine = metadata[ENGINE_METADATA_KEY];
  return typeof engine === 'string' ? engine : undefined;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether an attempt that `engine` started and left open is this engine's to take up again (a
 * crash of this engine left it): the same configured id; without a configured id, any start
 * but one of a process still running on this host (another engine beside this one).
 */
export function isOwnEarlierAttempt(identity: EngineIdentity, engine: string | undefined): boolean {
  if (engine === identity.id) return true;
  if (identity.configured) return false;
  if (engine === undefined) return true;
  const separator = engine.lastIndexOf(':');
  const host = engine.slice(0, separator);
  const pid = Number(engine.slice(separator + 1));
  return !(host === hostname() && Number.isSafeInteger(pid) && pid > 0 && processIsAlive(pid));
}
