// The engine limits the isolation suite reports next to the engine's peak memory: the body
// limits, the event streams (all and each tenant's share), the stream buffer and the fold cache,
// as the engine's configuration resolves them.
import type { EngineConfig } from '../../apps/engine/src/config/engine-config';
import { streamsPerTenant } from '../../apps/engine/src/events-stream/tenant-stream-shares';

export interface Limits {
  readonly bodyLimitBytes: number;
  readonly importBodyLimitBytes: number;
  readonly maxEventStreams: number;
  readonly streamsPerTenant: number;
  readonly streamBufferPerTenantBytes: number;
  readonly foldCacheEntries: number;
}

export function limitsOf(config: EngineConfig): Limits {
  const tenants = new Set(config.apiKeys.map((record) => record.tenant)).size;
  return {
    bodyLimitBytes: config.jsonBodyLimitBytes,
    importBodyLimitBytes: config.importBodyLimitBytes,
    maxEventStreams: config.maxEventStreams,
    streamsPerTenant: streamsPerTenant(config.maxEventStreams, tenants, config.maxEventStreamsPerTenant),
    streamBufferPerTenantBytes: config.eventStreamBufferBytes,
    foldCacheEntries: config.foldCache.maxEntries,
  };
}
