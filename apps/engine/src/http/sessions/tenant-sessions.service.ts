// Sessions as one tenant sees them: commands run on the tenant's behalf (so the store records
// the tenant on what they write), and a session of another tenant is not found.
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, type Command } from '@nestjs/cqrs';
import { ApiError } from '../problem/api-errors';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { runAsTenant } from '../../tenancy/tenant-scope';
import type { TenantStampingEventStore } from '../../tenancy/tenant-stamping-event-store';
import { TENANT_STORE } from '../http-tokens';

@Injectable()
export class TenantSessions {
  constructor(
    @Inject(TENANT_STORE) private readonly store: TenantStampingEventStore,
    private readonly commands: CommandBus,
  ) {}

  /** Throws `SessionNotFoundError` unless the session exists and is the principal's. */
  requireOwned(principal: TenantPrincipal, sessionId: string): Promise<void> {
    return this.store.tenants.requireSessionOf(principal.tenant, sessionId);
  }

  /** The tenant the session belongs to; undefined when it does not exist. */
  ownerOf(sessionId: string): Promise<string | undefined> {
    return this.store.tenants.tenantOfSession(sessionId);
  }

  /** Refuses a session id that another tenant already uses. */
  async requireAvailable(principal: TenantPrincipal, sessionId: string): Promise<void> {
    const owner = await this.ownerOf(sessionId);
    if (owner !== undefined && owner !== principal.tenant) {
      throw new ApiError('conflict', `session id ${sessionId} is not available`, {
        reason: 'session_id_taken',
      });
    }
  }

  /** Runs a command on behalf of the principal's tenant. */
  execute<Result>(principal: TenantPrincipal, command: Command<Result>): Promise<Result> {
    return runAsTenant(principal.tenant, () => this.commands.execute(command));
  }

  /** Runs other work (imports) on behalf of the principal's tenant. */
  run<Result>(principal: TenantPrincipal, work: () => Promise<Result>): Promise<Result> {
    return runAsTenant(principal.tenant, work);
  }
}
