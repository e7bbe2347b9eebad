// Who a command runs for, handed to it explicitly (no ambient state): the tenant of the API key
// of the request, or the tenant recorded on the event a saga reacts to. The write side seals it
// once into the metadata of every event the command writes; the stream's own tenant wins, and a
// command for another tenant than the stream's is refused (`TenantMismatchError`).

export interface CommandContext {
  /** Undefined: the stream's own tenant (or `default` for a new stream), as the CLI writes. */
  readonly tenant?: string;
}

/** The tenant events carry when none is recorded (single-tenant engines, older events). */
export const DEFAULT_TENANT = 'default';

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

/** The write option that carries the context's tenant (nothing when it names none). */
export function tenantOf(context: CommandContext): { readonly tenant?: string } {
  return context.tenant !== undefined ? { tenant: context.tenant } : {};
}
