// The engine's own memories of sessions beside the read models — the write side's fold cache and
// the tenant of each stream — forgotten when the store's erasure log says a session was erased,
// whichever engine (or `strata erase`) erased it. A volatile processor of the read-model runner.
import type { Processor } from '@strata/processing';
import type { ProjectedEvent } from '@strata/projections';
import { sessionIdOfStream } from '@strata/projections';
import type { SessionStreams } from '../session-streams/session-streams.service';
import type { StreamTenants } from '../tenancy/stream-tenants';

export function erasedSessionCaches(
  streams: SessionStreams,
  tenants: StreamTenants | undefined,
): Processor<ProjectedEvent> {
  return {
    name: 'erased-session-caches',
    durability: 'volatile',
    eventTypes: [],
    onFailure: 'skip',
    handle: () => Promise.resolve(),
    erase(partition) {
      const sessionId = sessionIdOfStream(partition);
      if (sessionId !== undefined) streams.forget(sessionId);
      tenants?.forget(partition);
      return Promise.resolve();
    },
  };
}
