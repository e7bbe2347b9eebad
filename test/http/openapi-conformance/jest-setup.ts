// Jest setup (setupFilesAfterEnv) of every spec file: the HTTP end-to-end specs (test/http) get
// their engines' answers checked against the OpenAPI document; other spec files load nothing more.
import { sep } from 'node:path';
import { installOpenApiConformance } from './conformance-recorder';

const HTTP_SPECS = `${sep}test${sep}http${sep}`;

if ((expect.getState().testPath ?? '').includes(HTTP_SPECS)) installOpenApiConformance();
