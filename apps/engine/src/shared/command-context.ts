// Who a command runs for, handed to it explicitly (no ambient state): the tenant and the actor of
// the API key of the request (with who the caller says it acts for), or the tenant recorded on
// the event a saga reacts to and the engine as actor. The write side seals it once into the
// metadata of every event the command writes; the stream's own tenant wins, and a command for
// another tenant than the stream's is refused (`TenantMismatchError`).

export interface CommandContext {
  /** Undefined: the stream's own tenant (or `default` for a new stream), as the CLI writes. */
  readonly tenant?: string;
  /** Who writes: the name of the request's API key; the engine (`ENGINE_ACTOR`) when undefined. */
  readonly actor?: string;
  /** Who the caller says it acts for (`X-Strata-Actor`); recorded beside the actor, never instead. */
  readonly onBehalfOf?: string;
}

/** The tenant events carry when none is recorded (single-tenant engines, older events). */
export const DEFAULT_TENANT = 'default';

/** The actor of what the engine writes on its own (sagas, recovery) and of commands that name none. */
export const ENGINE_ACTOR = 'strata-engine';

/** The actor of a request to a single-tenant engine, where no API key says who calls. */
export const ANONYMOUS_ACTOR = 'anonymous';

/** The metadata key of who the caller acts for. */
const ON_BEHALF_OF_METADATA_KEY = 'onBehalfOf';

export function tenantOfMetadata(metadata: Readonly<Record<string, unknown>>): string {
  const tenant = metadata['tenant'];
  return typeof tenant === 'string' && tenant !== '' ? tenant : DEFAULT_TENANT;
}

/** Work done for one tenant tried to write to a stream of another. */
export class TenantMismatchError extends Error {
  override readonly name = 'TenantMismatchError';

  constructor(
    readonly streamId: string,
    readonly streamTenant: string,
    readonly requestedTenant: string,
  ) {
    super(`stream ${streamId} belongs to another tenant`);
  }
}

/** What a write carries of the context: its tenant, and its actor and on-behalf-of when named. */
export interface WriteContext {
  readonly tenant?: string;
  readonly actor?: string;
  readonly onBehalfOf?: string;
}

/** The write options that carry the context (nothing of what it leaves out). */
export function writeContextOf(context: CommandContext): WriteContext {
  return {
    ...(context.tenant !== undefined ? { tenant: context.tenant } : {}),
    ...(context.actor !== undefined ? { actor: context.actor } : {}),
    ...(context.onBehalfOf !== undefined ? { onBehalfOf: context.onBehalfOf } : {}),
  };
}

/** The audit metadata of a write: its actor (the engine unless named) and who it acts for. */
export function actorMetadataOf(context: WriteContext): Readonly<Record<string, string>> {
  return {
    actor: context.actor ?? ENGINE_ACTOR,
    ...(context.onBehalfOf !== undefined ? { [ON_BEHALF_OF_METADATA_KEY]: context.onBehalfOf } : {}),
  };
}
