// GET /sessions/{id}/entries/{entryId}: one entry of a session, as stored (issue 25), with where
// it sits in the tree (its label, its children, whether it is on the current path). A host reads
// the compaction an append asked for, or any entry it has the id of, without paging the entries.
// The tenant rules are the other reads' (another tenant's session is not found, an erased one is
// gone); an unknown entry is a 404 problem.
import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { UnknownEntryError } from '@strata/projections';
import { pathToEntry } from '@strata/session';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { parseParameter } from '../../api/request/request-input';
import {
  entryIdParameter,
  sessionEntryPath,
  sessionIdParameter,
} from '../../api/sessions/session-requests.schemas';
import { sessionEntryResponse } from '../../api/sessions/session-visibility.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { ReadModels } from '../../read-side/read-models.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';

@Controller()
@UseGuards(TenantGuard)
export class SessionEntryController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly readModels: ReadModels,
  ) {}

  @Get('sessions/:sessionId/entries/:entryId')
  async entry(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Param('entryId') entryIdText: string,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const entryId = parseParameter('entryId', entryIdText, entryIdParameter);
    await this.sessions.requireOwned(principal, sessionId);
    this.readModels.requireNotSetAside(sessionId, ['context']);
    const tree = await this.readModels.projections.context.sessionTree(sessionId);
    const entry = tree.byId.get(entryId);
    if (entry === undefined) throw new UnknownEntryError(sessionId, entryId);
    const onCurrentPath =
      tree.leafId !== null && pathToEntry(tree.byId, tree.leafId).some((onPath) => onPath.id === entryId);
    return {
      sessionId,
      entry,
      label: tree.labels.get(entryId) ?? null,
      childIds: tree.children.get(entryId) ?? [],
      onCurrentPath,
      leafId: tree.leafId,
      revision: tree.revision.toString(),
      position: tree.position.toString(),
    };
  }
}

export const sessionEntryOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/sessions/{sessionId}/entries/{entryId}',
    operationId: 'getEntry',
    tag: 'sessions',
    summary: 'One entry of a session',
    description:
      'The entry as stored, its label, the entries appended under it, and whether it is on the path to the ' +
      'current leaf. 404 `not_found` for an unknown session (or one of another tenant) or an unknown entry.',
    pathParameters: sessionEntryPath,
    responses: { 200: { description: 'The entry', schema: sessionEntryResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
];
