// Sessions as one tenant sees them: commands are built with the principal's context (so what they
// write is sealed with the tenant and the key's actor), and a session of another tenant is not found.
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, type Command } from '@nestjs/cqrs';
import { SessionNotFoundError } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { ApiError } from './problem/api-errors';
import {
  SessionErasedError,
  erasureTenant,
  requireNotErased,
  sessionErasure,
} from '../shared/session-erasure';
import type { TenantPrincipal } from '../tenancy/tenant-directory';
import type { CommandContext } from '../shared/command-context';
import type { TenantGuardEventStore } from '../tenancy/tenant-guard-event-store';
import { TENANT_STORE } from './http-tokens';

@Injectable()
export class TenantSessions {
  constructor(
    @Inject(TENANT_STORE) private readonly store: TenantGuardEventStore,
    private readonly commands: CommandBus,
  ) {}

  /**
   * Throws `SessionNotFoundError` unless the session exists and is the principal's, and
   * `SessionErasedError` (410) when the principal's session was erased.
   */
  async requireOwned(principal: TenantPrincipal, sessionId: string): Promise<void> {
    try {
      await this.store.tenants.requireSessionOf(principal.tenant, sessionId);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      const erased = await sessionErasure(this.store, sessionId, principal.tenant);
      if (erased !== undefined && (await this.store.streamRevision(sessionStreamName(sessionId))) === null) {
        throw new SessionErasedError(sessionId, erased);
      }
      throw error;
    }
  }

  /**
   * Refuses to write a session of the principal that was erased (409 `session_erased`) unless
   * `allowErased`; another tenant's erased session is refused as taken.
   */
  async requireNotErased(principal: TenantPrincipal, sessionId: string, allowErased: boolean): Promise<void> {
    try {
      await requireNotErased(this.store, sessionId, undefined);
    } catch (error) {
      if (!(error instanceof SessionErasedError)) throw error;
      if (erasureTenant(error.record) !== principal.tenant) {
        throw new ApiError('conflict', `session id ${sessionId} is not available`, {
          reason: 'session_id_taken',
        });
      }
      if (allowErased) return;
      throw new ApiError(
        'conflict',
        `session ${sessionId} was erased at ${error.record.erasedAt} by ${error.record.actor}; ` +
          'send allowErased=true to write it again',
        { reason: 'session_erased', sessionId, erasure: error.record },
      );
    }
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

  /** Builds the command for the principal (its tenant, its actor and who it acts for) and runs it. */
  execute<Result>(
    principal: TenantPrincipal,
    command: (context: CommandContext) => Command<Result>,
  ): Promise<Result> {
    return this.commands.execute(command(commandContextOf(principal)));
  }
}

/** The context of commands run for the principal. */
export function commandContextOf(principal: TenantPrincipal): CommandContext {
  const { tenant, actor, onBehalfOf } = principal;
  return { tenant, actor, ...(onBehalfOf !== undefined ? { onBehalfOf } : {}) };
}
