// The engine's metrics (served at /metrics), in a prom-client registry of its own: the process
// and runtime metrics, the build, session events and compactions as the store records them,
// appends made by this process, the summariser's calls, the live event streams, HTTP responses,
// the admission of write requests, the sagas' slots and the projections' lag (the gauges read
// when scraped are set by the metrics controller). README "Metrics" lists them with their labels.
import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { ENGINE_VERSION } from '../shared/engine-version';
import { CounterFamily, GaugeFamily, HistogramFamily } from './metric-families';
import { addProcessMetrics } from './process-metrics';
import { ProjectionLagMetrics, type StoreKind } from './projection-lag-metrics';
import { SagaSlotMetrics } from './saga-slot-metrics';
import { SummarizerMetrics } from './summarizer-metrics';

/** Seconds: from a fast offline summary to a slow remote model. */
const ATTEMPT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const ADMISSION_WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30];

export interface EngineMetricsOptions {
  /** The kind of store the engine runs on (the build info's `store`; which lag gauge it has). */
  readonly store: StoreKind;
}

@Injectable()
export class EngineMetrics {
  readonly registry = new Registry();

  readonly buildInfo = new GaugeFamily<'version' | 'node_version' | 'store'>(this.registry, {
    name: 'strata_build_info',
    help: 'Always 1: the engine version, the Node.js version and the kind of store (sqlite, memory, esdb).',
    labelNames: ['version', 'node_version', 'store'],
  });
  readonly sessionEvents = new CounterFamily<'type'>(this.registry, {
    name: 'strata_session_events_total',
    help: 'Session events recorded in the store since the engine started, by event type.',
    labelNames: ['type'],
  });
  readonly appends = new CounterFamily<'result'>(this.registry, {
    name: 'strata_appends_total',
    help: 'Appends to session streams made by this process, by result (ok, conflict, error).',
    labelNames: ['result'],
  });
  readonly appendedEvents = new CounterFamily(this.registry, {
    name: 'strata_appended_events_total',
    help: 'Events written by the successful appends of this process.',
  });
  readonly appendDuration = new HistogramFamily<'result'>(this.registry, {
    name: 'strata_append_duration_seconds',
    help: 'Duration of appends to session streams made by this process.',
    labelNames: ['result'],
    buckets: APPEND_BUCKETS,
  });
  readonly compactions = new CounterFamily<'trigger' | 'outcome'>(this.registry, {
    name: 'strata_compactions_total',
    help: 'Compaction attempts ended, by trigger and outcome (completed, skipped, cancelled, failed).',
    labelNames: ['trigger', 'outcome'],
  });
  readonly compactionDuration = new HistogramFamily<'trigger' | 'outcome'>(this.registry, {
    name: 'strata_compaction_duration_seconds',
    help: 'Duration of compaction attempts, by trigger and outcome.',
    labelNames: ['trigger', 'outcome'],
    buckets: ATTEMPT_BUCKETS,
  });
  readonly branchSummaries = new CounterFamily<'outcome'>(this.registry, {
    name: 'strata_branch_summaries_total',
    help: 'Branch-summary attempts ended, by outcome.',
    labelNames: ['outcome'],
  });
  readonly summarizer = new SummarizerMetrics(this.registry);
  readonly projectionLag: ProjectionLagMetrics;
  readonly sessionsSetAside = new CounterFamily<'projection'>(this.registry, {
    name: 'strata_sessions_set_aside_total',
    help: 'Sessions a read model set aside since the engine started (an event it could not read back or apply), by read model.',
    labelNames: ['projection'],
  });
  readonly sessionsSetAsideNow = new GaugeFamily(this.registry, {
    name: 'strata_sessions_set_aside',
    help: 'Sessions set aside by at least one read model now (their reads answer set_aside).',
  });
  readonly projectionsLive = new GaugeFamily(this.registry, {
    name: 'strata_projections_live',
    help: '1 when the projections have caught up and follow the store live, else 0.',
  });
  readonly eventStreamsOpen = new GaugeFamily(this.registry, {
    name: 'strata_event_streams_open',
    help: 'Server-sent-events streams currently open.',
  });
  readonly eventsStreamed = new CounterFamily<'name'>(this.registry, {
    name: 'strata_events_streamed_total',
    help: 'Public events written to server-sent-events streams, by name.',
    labelNames: ['name'],
  });
  readonly httpResponses = new CounterFamily<'method' | 'status'>(this.registry, {
    name: 'strata_http_responses_total',
    help: 'HTTP responses, by method and status code.',
    labelNames: ['method', 'status'],
  });
  readonly httpDuration = new HistogramFamily<'method'>(this.registry, {
    name: 'strata_http_response_duration_seconds',
    help: 'Time to answer HTTP requests (event streams excluded), by method.',
    labelNames: ['method'],
    buckets: HTTP_BUCKETS,
  });
  readonly httpRouteResponses = new CounterFamily<'method' | 'route' | 'status'>(this.registry, {
    name: 'strata_http_requests_total',
    help: 'HTTP responses, by method, route template (/sessions/:id/entries; unmatched for a path no route serves) and status code.',
    labelNames: ['method', 'route', 'status'],
  });
  readonly httpRouteDuration = new HistogramFamily<'method' | 'route'>(this.registry, {
    name: 'strata_http_request_duration_seconds',
    help: 'Time to answer HTTP requests (event streams excluded), by method and route template.',
    labelNames: ['method', 'route'],
    buckets: HTTP_BUCKETS,
  });
  readonly writesAdmitted = new CounterFamily<'waited'>(this.registry, {
    name: 'strata_writes_admitted_total',
    help: "Write requests admitted, by whether they waited in their tenant's queue first.",
    labelNames: ['waited'],
  });
  readonly writesRefused = new CounterFamily<'reason'>(this.registry, {
    name: 'strata_writes_refused_total',
    help: 'Write requests refused before their body was read, by reason (write_share_exceeded: 429, write_capacity_exhausted: 503).',
    labelNames: ['reason'],
  });
  readonly writesWithdrawn = new CounterFamily(this.registry, {
    name: 'strata_writes_withdrawn_total',
    help: 'Write requests whose client went away while they waited for admission.',
  });
  readonly writeAdmissionWait = new HistogramFamily(this.registry, {
    name: 'strata_write_admission_wait_seconds',
    help: 'How long admitted write requests waited in their queue (those admitted at once are not observed).',
    buckets: ADMISSION_WAIT_BUCKETS,
  });
  readonly writeBytesInFlight = new GaugeFamily(this.registry, {
    name: 'strata_write_bytes_in_flight',
    help: "Bytes of the write requests admitted and not yet ended (as declared; a body of unknown length counts as its route's limit).",
  });
  readonly workerTasks = new CounterFamily<'task' | 'outcome'>(this.registry, {
    name: 'strata_worker_tasks_total',
    help: 'Tasks run on the worker threads (import_encode, import_prepare), by outcome (ok, failed, refused: the queue was full).',
    labelNames: ['task', 'outcome'],
  });
  readonly writesInFlight = new GaugeFamily(this.registry, {
    name: 'strata_writes_in_flight',
    help: 'Write requests admitted and not yet ended.',
  });
  readonly writesQueued = new GaugeFamily(this.registry, {
    name: 'strata_writes_queued',
    help: 'Write requests waiting for admission.',
  });
  readonly sagaSlots = new SagaSlotMetrics(this.registry);

  constructor(options: EngineMetricsOptions) {
    this.projectionLag = new ProjectionLagMetrics(this.registry, options.store);
    this.buildInfo.set({ version: ENGINE_VERSION, node_version: process.version, store: options.store }, 1);
    addProcessMetrics(this.registry);
  }

  /** The exposition text of every metric, or of those whose name `shown` accepts. */
  async render(shown: (name: string) => boolean = () => true): Promise<string> {
    const texts: string[] = [];
    for (const metric of this.registry.getMetricsAsArray()) {
      if (shown(metric.name)) texts.push(await this.registry.getSingleMetricAsString(metric.name));
    }
    return texts.map((text) => `${text}\n`).join('');
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
