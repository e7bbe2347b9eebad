// @strata/client: a typed client of Strata's HTTP API and its event stream, on Node's fetch. It
// depends on nothing but Node: no Nest, no other lib (see the README, "Client library").
export * from './api-types';
export * from './attempt-types';
export * from './event-types';
export * from './errors';
export { EventStreamParser, type EventFrame, type ParserSink } from './event-stream-parser';
export {
  EVENT_ID_PATTERN,
  EventSubscription,
  type EventStreamOptions,
  type ReconnectInfo,
} from './event-subscription';
export { SESSION_FILE_MEDIA_TYPE, StrataClient, type StrataClientOptions } from './strata-client';
export { type CallOptions, type RetryPolicy, type TransportOptions } from './transport';
export * from './entry-builders';
export { SessionHost, type AppendTurnOptions, type SessionHostOptions, type TurnBatch } from './session-host';
