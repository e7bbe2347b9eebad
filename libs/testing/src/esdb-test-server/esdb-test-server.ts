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
  /**
   * Serve over TLS with this certificate (PEM, for `localhost` and 127.0.0.1) and its private
   * key, as a secure node does; the client then needs `tls=true` and the CA (`tlsCAFile`).
   */
  readonly tls?: { readonly certificate: string; readonly privateKey: string };
  /**
   * Refuse every `Streams` call without this user's basic credentials with UNAUTHENTICATED, as
   * a secure node does (the client sends credentials only over TLS).
   */
  readonly credentials?: { readonly username: string; readonly password: string };
}

export interface EsdbTestServer {
  /** `esdb://127.0.0.1:<port>?tls=false`; with `tls`, `esdb://localhost:<port>?tls=true` */
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

function unauthenticated(): ServiceError {
  return Object.assign(new Error('16 UNAUTHENTICATED'), {
    code: status.UNAUTHENTICATED,
    details: 'Bad username or password',
    metadata: new Metadata(),
  });
}

/** Whether a call may go on: no credentials configured, or the call carries them. */
function authorizes(
  credentials: EsdbTestServerOptions['credentials'],
  call: { readonly metadata: Metadata },
): boolean {
  if (credentials === undefined) return true;
  const expected = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
  return call.metadata.get('authorization').includes(`Basic ${expected}`);
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
  const allowed = (call: { readonly metadata: Metadata }) => authorizes(options.credentials, call);
  const streams: IStreamsServer = {
    read: (call) => {
      if (allowed(call)) void handleRead(log, registry, call);
      else call.emit('error', unauthenticated());
    },
    append: (call, callback) => {
      if (allowed(call)) handleAppend(log, call, callback, options.maxAppendBytes);
      else callback(unauthenticated(), null);
    },
    batchAppend: (call) => {
      if (allowed(call)) handleBatchAppend(log, registry, call, options.maxAppendBytes);
      else call.emit('error', unauthenticated());
    },
    delete: (call, callback) => {
      if (allowed(call)) handleDelete(log, call, callback);
      else callback(unauthenticated(), null);
    },
    tombstone: (call, callback) => {
      if (allowed(call)) handleTombstone(log, call, callback);
      else callback(unauthenticated(), null);
    },
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
      options.tls === undefined
        ? ServerCredentials.createInsecure()
        : ServerCredentials.createSsl(null, [
            {
              cert_chain: Buffer.from(options.tls.certificate),
              private_key: Buffer.from(options.tls.privateKey),
            },
          ]),
      (error, boundPort) => (error === null ? resolve(boundPort) : reject(error)),
    );
  });
  let stopped: Promise<void> | undefined;
  return {
    port,
    connectionString:
      options.tls === undefined ? `esdb://127.0.0.1:${port}?tls=false` : `esdb://localhost:${port}?tls=true`,
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
