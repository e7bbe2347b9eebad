// The engine's metrics (served at /metrics): session events and compactions as the store
// records them, appends made by this process, the live event streams, HTTP responses, the
// admission of write requests, and the projections' lag (read when scraped).
import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from './metrics-registry';

/** Seconds: from a fast offline summary to a slow remote model. */
const ATTEMPT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const ADMISSION_WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30];

@Injectable()
export class EngineMetrics {
  readonly registry = new MetricsRegistry();

  readonly sessionEvents = this.registry.counter(
    'strata_session_events_total',
    'Session events recorded in the store since the engine started, by event type.',
    ['type'],
  );
  readonly appends = this.registry.counter(
    'strata_appends_total',
    'Appends to session streams made by this process, by result (ok, conflict, error).',
    ['result'],
  );
  readonly appendedEvents = this.registry.counter(
    'strata_appended_events_total',
    'Events written by the successful appends of this process.',
  );
  readonly appendDuration = this.registry.histogram(
    'strata_append_duration_seconds',
    'Duration of appends to session streams made by this process.',
    ['result'],
    APPEND_BUCKETS,
  );
  readonly compactions = this.registry.counter(
    'strata_compactions_total',
    'Compaction attempts ended, by trigger and outcome (completed, skipped, cancelled, failed).',
    ['trigger', 'outcome'],
  );
  readonly compactionDuration = this.registry.histogram(
    'strata_compaction_duration_seconds',
    'Duration of compaction attempts, by trigger and outcome.',
    ['trigger', 'outcome'],
    ATTEMPT_BUCKETS,
  );
  readonly branchSummaries = this.registry.counter(
    'strata_branch_summaries_total',
    'Branch-summary attempts ended, by outcome.',
    ['outcome'],
  );
  readonly projectionLag = this.registry.gauge(
    'strata_projection_lag_events',
    'How far the projections are behind the last session event in the store (positions).',
  );
  readonly projectionAppliedPosition = this.registry.gauge(
    'strata_projection_applied_position',
    'The global position every projection has applied and flushed.',
  );
  readonly sessionsSetAside = this.registry.counter(
    'strata_sessions_set_aside_total',
    'Sessions a read model set aside since the engine started (an event it could not read back or apply), by read model.',
    ['projection'],
  );
  readonly sessionsSetAsideNow = this.registry.gauge(
    'strata_sessions_set_aside',
    'Sessions set aside by at least one read model now (their reads answer set_aside).',
  );
  readonly projectionsLive = this.registry.gauge(
    'strata_projections_live',
    '1 when the projections have caught up and follow the store live, else 0.',
  );
  readonly eventStreamsOpen = this.registry.gauge(
    'strata_event_streams_open',
    'Server-sent-events streams currently open.',
  );
  readonly eventsStreamed = this.registry.counter(
    'strata_events_streamed_total',
    'Public events written to server-sent-events streams, by name.',
    ['name'],
  );
  readonly httpResponses = this.registry.counter(
    'strata_http_responses_total',
    'HTTP responses, by method and status code.',
    ['method', 'status'],
  );
  readonly httpDuration = this.registry.histogram(
    'strata_http_response_duration_seconds',
    'Time to answer HTTP requests (event streams excluded), by method.',
    ['method'],
    HTTP_BUCKETS,
  );
  readonly writesAdmitted = this.registry.counter(
    'strata_writes_admitted_total',
    "Write requests admitted, by whether they waited in their tenant's queue first.",
    ['waited'],
  );
  readonly writesRefused = this.registry.counter(
    'strata_writes_refused_total',
    'Write requests refused before their body was read, by reason (write_share_exceeded: 429, write_capacity_exhausted: 503).',
    ['reason'],
  );
  readonly writesWithdrawn = this.registry.counter(
    'strata_writes_withdrawn_total',
    'Write requests whose client went away while they waited for admission.',
  );
  readonly writeAdmissionWait = this.registry.histogram(
    'strata_write_admission_wait_seconds',
    'How long admitted write requests waited in their queue (those admitted at once are not observed).',
    [],
    ADMISSION_WAIT_BUCKETS,
  );
  readonly writeBytesInFlight = this.registry.gauge(
    'strata_write_bytes_in_flight',
    "Bytes of the write requests admitted and not yet ended (as declared; a body of unknown length counts as its route's limit).",
  );
  readonly workerTasks = this.registry.counter(
    'strata_worker_tasks_total',
    'Tasks run on the worker threads (import_encode, import_prepare), by outcome (ok, failed, refused: the queue was full).',
    ['task', 'outcome'],
  );
  readonly writesInFlight = this.registry.gauge(
    'strata_writes_in_flight',
    'Write requests admitted and not yet ended.',
  );
  readonly writesQueued = this.registry.gauge(
    'strata_writes_queued',
    'Write requests waiting for admission.',
  );
}
