// The audit projection (issue 5): every compaction and branch-summary attempt across sessions,
// one document per attempt, kept in an AuditStorage and queried by tenant and session.
import { DocumentProjection } from '../documents/document-projection';
import type { Page } from '../documents/paging';
import type { AuditAttempt } from './audit-attempt';
import { auditProjectionDefinition } from './audit-evolve';
import type { AuditQuery, AuditStorage } from './audit-storage';

export class AuditProjection extends DocumentProjection<AuditAttempt> {
  constructor(private readonly audit: AuditStorage) {
    super(auditProjectionDefinition, audit);
  }

  /** Throws `InvalidProjectionQueryError` for a bad limit, offset or cursor. */
  listAttempts(query: AuditQuery): Promise<Page<AuditAttempt>> {
    return this.audit.listAttempts(query);
  }

  /** The attempts of one session of `tenant` (none for another tenant's session), oldest first. */
  sessionAttempts(tenant: string, sessionId: string, limit = 500): Promise<Page<AuditAttempt>> {
    return this.audit.listAttempts({ tenant, sessionId, order: 'oldest_first', limit });
  }
}
