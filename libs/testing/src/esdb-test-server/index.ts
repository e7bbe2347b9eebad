// TEST FIXTURE: the EventStoreDB protocol test server (see README.md for what it does not prove).
export { startEsdbTestServer, type EsdbTestServer, type EsdbTestServerOptions } from './esdb-test-server';
export { canMakeTestCertificates, makeTestCertificates, type TestCertificates } from './test-certificates';
