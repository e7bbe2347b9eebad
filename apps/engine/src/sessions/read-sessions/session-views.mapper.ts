// Read models as the API shows them: bigints as decimal strings, maps as plain objects, the tree
// as a flat list of nodes (a deep session nests too far for JSON nesting).
import type { AuditAttempt, CatalogSession, ProjectedContext, SessionTreeView } from '@strata/projections';
import { convertToLlm, type ContextTemplates } from '@strata/session';

export function catalogSessionView(session: CatalogSession) {
  return { ...session, position: session.position.toString() };
}

export function auditAttemptView(attempt: AuditAttempt) {
  return {
    ...attempt,
    position: attempt.position.toString(),
    startPosition: attempt.startPosition.toString(),
  };
}

export function contextView(
  projected: ProjectedContext,
  format: 'agent' | 'llm',
  templates: ContextTemplates,
  asOf: bigint | undefined,
) {
  const { context } = projected;
  return {
    sessionId: projected.sessionId,
    format,
    leafId: context.leafId,
    compactionId: context.compactionId,
    messages: format === 'llm' ? convertToLlm(context.messages, templates) : context.messages,
    entryIds: context.entryIds,
    thinkingLevel: context.thinkingLevel,
    models: context.models,
    tokens: projected.tokens,
    messageTokens: projected.messageTokens,
    tokenCounter: projected.tokenCounter,
    revision: projected.revision.toString(),
    position: projected.position.toString(),
    asOf: asOf === undefined ? null : asOf.toString(),
    repairs: {
      synthesizedResults: context.repairs.synthesizedResults,
      droppedOrphanResults: context.repairs.droppedOrphanResults,
      omittedFailedAnswers: context.repairs.omittedFailedAnswers,
      missingFirstKeptEntry: context.repairs.missingFirstKeptEntry,
    },
  };
}

export function treeView(tree: SessionTreeView) {
  return {
    sessionId: tree.sessionId,
    header: tree.header,
    leafId: tree.leafId,
    rootIds: tree.children.get(null) ?? [],
    nodes: tree.entries.map((entry) => ({
      id: entry.id,
      parentId: entry.parentId,
      type: entry.type,
      timestamp: entry.timestamp,
      label: tree.labels.get(entry.id) ?? null,
      childIds: tree.children.get(entry.id) ?? [],
    })),
    revision: tree.revision.toString(),
    position: tree.position.toString(),
  };
}
