// @strata/client/browser: what of the client a browser bundle may take (the audit viewer,
// apps/viewer): the API's types, the errors and the event-stream parser. Nothing here may import
// a node: built-in or the fetch transport; scripts/check-dependencies.js checks every file it reaches.
export * from './api-types';
export * from './attempt-types';
export * from './event-types';
export * from './errors';
export { EventStreamParser, type EventFrame, type ParserSink } from './event-stream-parser';
