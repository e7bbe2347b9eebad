// TEST FIXTURE, not a database. An in-process server that speaks EventStoreDB's gRPC protocol
// (built with @grpc/grpc-js on the generated stubs inside @eventstore/db-client) over an in-memory
// log, so that the real client and the EventStoreDB adapter can be tested without a server.
// It proves the adapter's wiring and its use of the client; it proves nothing about
// EventStoreDB's durability, clustering, scavenging or performance. See README.md.
import { Metadata, Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import {
  ServerFeaturesService,
  type IServerFeaturesServer,
} from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';
import { StreamsService, type IStreamsServer } from '@eventstore/db-client/generated/streams_grpc_pb';
import { EventLog } from './event-log';
import { handleRead } from './read-service';
import type { SubscriptionRegistry } from './subscription-service';
import { handleAppend, handleBatchAppend, handleDelete, handleTombstone } from './write-service';

export interface EsdbTestServerOptions {
  /**
   * Advertise `Streams.BatchAppend` through `ServerFeatures` (default true, like servers 21.10+).
   * With false the client falls back to the client-streaming `Streams.Append`.
   */
  readonly batchAppend?: boolean;
  /** Answer `ServerFeatures` with UNIMPLEMENTED (what servers before 21.10 do). Default false. */
  readonly withoutServerFeatures?: boolean;
  /** The clock for `created` timestamps and `$maxAge` (milliseconds since the epoch). */
  readonly now?: () => number;
  /** The loopback port to listen on; default 0 (any free port). */
  readonly port?: number;
  /**
   * Refuse appends whose events' data and metadata exceed this many bytes, as a server's
   * `MaxAppendSize` does (1 MiB by default on a real node); no bound by default.
   */
  readonly maxAppendBytes?: number;
}

export interface EsdbTestServer {
  /** `esdb://127.0.0.1:<port>?tls=false` */
  readonly connectionString: string;
  readonly port: number;
  /** Ends open subscriptions and batch-append streams, then shuts the server down. */
  stop(): Promise<void>;
}

const SERVER_VERSION = '24.10.0';
const STREAMS_SERVICE = 'event_store.client.streams.streams';
const FEATURES_SERVICE = 'event_store.client.server_features.serverfeatures';

function supportedMethods(batchAppend: boolean): SupportedMethods {
  const methods = new SupportedMethods();
  methods.setEventStoreServerVersion(SERVER_VERSION);
  const names: [string, string][] = [
    [STREAMS_SERVICE, 'read'],
    [STREAMS_SERVICE, 'append'],
    [STREAMS_SERVICE, 'delete'],
    [STREAMS_SERVICE, 'tombstone'],
    [FEATURES_SERVICE, 'getsupportedmethods'],
  ];
  if (batchAppend) names.push([STREAMS_SERVICE, 'batchappend']);
  methods.setMethodsList(
    names.map(([serviceName, methodName]) => {
      const method = new SupportedMethod();
      method.setServiceName(serviceName);
      method.setMethodName(methodName);
      return method;
    }),
  );
  return methods;
}

function unimplemented(): ServiceError {
  return Object.assign(new Error('12 UNIMPLEMENTED'), {
    code: status.UNIMPLEMENTED,
    details: 'Server features are not implemented',
    metadata: new Metadata(),
  });
}

/** Starts the fixture on 127.0.0.1 with a free port. */
export async function startEsdbTestServer(options: EsdbTestServerOptions = {}): Promise<EsdbTestServer> {
  const log = new EventLog(options.now);
  const stoppers = new Set<() => void>();
  const registry: SubscriptionRegistry = {
    add(stop) {
      stoppers.add(stop);
      return () => stoppers.delete(stop);
    },
  };
  const server = new Server();
  const streams: IStreamsServer = {
    read: (call) => void handleRead(log, registry, call),
    append: (call, callback) => handleAppend(log, call, callback, options.maxAppendBytes),
    batchAppend: (call) => handleBatchAppend(log, registry, call, options.maxAppendBytes),
    delete: (call, callback) => handleDelete(log, call, callback),
    tombstone: (call, callback) => handleTombstone(log, call, callback),
  };
  server.addService(StreamsService, streams);
  const features = supportedMethods(options.batchAppend ?? true);
  const serverFeatures: IServerFeaturesServer = {
    getSupportedMethods: (_call, callback) => {
      if (options.withoutServerFeatures === true) callback(unimplemented(), null);
      else callback(null, features);
    },
  };
  server.addService(ServerFeaturesService, serverFeatures);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `127.0.0.1:${options.port ?? 0}`,
      ServerCredentials.createInsecure(),
      (error, boundPort) => (error === null ? resolve(boundPort) : reject(error)),
    );
  });
  let stopped: Promise<void> | undefined;
  return {
    port,
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const stop of [...stoppers]) stop();
        server.tryShutdown(() => resolve());
        server.forceShutdown();
      });
      return stopped;
    },
  };
}
