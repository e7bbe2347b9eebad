// Suite `import` (issue 6): importing the two pi fixture files (read from ../shared/fixtures/pi,
// never copied) through the library path of `strata import` and through the engine's
// `POST /sessions/import`, against parsing the lines and inserting them with raw better-sqlite3
// in one transaction. Reports entries/s (the chart) and MB/s (a table in SUMMARY.md).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import { piFixturePath } from '@strata/testing';
import { loadEngineConfig } from '../../apps/engine/src/config/engine-config';
import { createEngineApplication } from '../../apps/engine/src/engine-application';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { createUuidV7Generator } from '../../libs/event-store/src/ids/uuidv7';
import {
  formatMilliseconds,
  formatPercent,
  formatRate,
  measureCases,
  primaryComparison,
  compareWithBaselines,
  type BenchSuite,
  type CaseResult,
  type MeasureSettings,
  type SummaryTable,
} from '../harness';
import { fixtureNames } from '../context/datasets';
import { freshDatabase } from '../store/sqlite-cases';
import {
  headerSessionId,
  IMPORT_ACTOR,
  IMPORT_TENANT,
  importCases,
  rawEventRows,
  type ImportEngine,
  type ImportFile,
} from './import-cases';

const fullSettings: MeasureSettings = { warmupIterations: 1, iterations: 8, maxSeconds: 8, minIterations: 4 };
const quickSettings: MeasureSettings = {
  warmupIterations: 1,
  iterations: 2,
  maxSeconds: 1,
  minIterations: 2,
};

function readImportFile(fileName: string): ImportFile | string {
  const filePath = piFixturePath(fileName);
  if (!fs.existsSync(filePath)) {
    const notice = `pi fixture ${filePath} is not present: its import cases were skipped`;
    if (process.env.CI === 'true') throw new Error(`${notice} (required under CI=true)`);
    return notice;
  }
  const bytes = fs.readFileSync(filePath);
  const lines = bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0).length;
  return { name: fileName.replace(/\.jsonl$/, ''), bytes, megabytes: bytes.length / 1e6, entries: lines - 1 };
}

/** Rows and bytes each side writes for one file (one import outside the timed iterations). */
async function writtenFootprint(
  file: ImportFile,
  scratchDirectory: string,
): Promise<Record<string, unknown>> {
  const database = freshDatabase(scratchDirectory, 'footprint');
  const store = new SqliteEventStore({ filename: database.filename });
  try {
    const report = await importSessionFile(store, file.bytes, { actor: IMPORT_ACTOR, tenant: IMPORT_TENANT });
    const stored = store.database
      .prepare(
        'SELECT count(*) AS events, sum(length(CAST(data AS BLOB))) AS data, sum(length(CAST(metadata AS BLOB))) AS metadata FROM events',
      )
      .get() as Record<'events' | 'data' | 'metadata', number | bigint>;
    const rows = rawEventRows(file.bytes, createUuidV7Generator());
    let rawData = 0;
    let rawMetadata = 0;
    for (const row of rows) {
      rawData += Buffer.byteLength(row.data);
      rawMetadata += Buffer.byteLength(row.metadata);
    }
    return {
      sessionId: report.sessionId,
      sourceVersion: report.sourceVersion,
      migrated: report.migrated,
      // The store's connection reads integers as bigint.
      strata: {
        events: Number(stored.events),
        dataBytes: Number(stored.data),
        metadataBytes: Number(stored.metadata),
      },
      rawBaseline: { events: rows.length, dataBytes: rawData, metadataBytes: rawMetadata },
    };
  } finally {
    await store.close();
    database.remove();
  }
}

async function startEngine(
  scratchDirectory: string,
): Promise<{ app: INestApplication; engine: ImportEngine }> {
  const config = loadEngineConfig(
    { STRATA_STORE: `sqlite:${path.join(scratchDirectory, 'engine.db')}`, STRATA_LOG_LEVEL: 'silent' },
    scratchDirectory,
  );
  const app = await createEngineApplication(config, { environment: {}, settings: { tokenizer: 'chars4' } });
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const sagas = app.get(SagaRunner);
  const engine: ImportEngine = {
    baseUrl,
    async caughtUp(sessionId) {
      const response = await fetch(`${baseUrl}/sessions/${encodeURIComponent(sessionId)}`);
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`GET /sessions/${sessionId} answered ${response.status}: ${text}`);
      await sagas.drain();
    },
  };
  return { app, engine };
}

/** Entries/s and MB/s per case at the median, with the ratio to the raw baseline. */
function throughputTable(cases: readonly CaseResult[], files: readonly ImportFile[]): SummaryTable {
  const comparisons = compareWithBaselines(cases);
  const rows = cases.map((result) => {
    const file = files.find((candidate) => result.name.startsWith(`import/${candidate.name}/`));
    const megabytesPerSecond = file === undefined ? Number.NaN : (file.megabytes * 1000) / result.medianMs;
    const comparison = primaryComparison(comparisons, result.name);
    return [
      file?.name ?? '?',
      result.label,
      formatMilliseconds(result.medianMs),
      formatRate(result.operationsPerSecond),
      megabytesPerSecond.toFixed(1),
      result.role === 'baseline'
        ? 'baseline'
        : comparison === undefined
          ? ''
          : formatPercent(comparison.percentOfBaseline),
    ];
  });
  return {
    title: 'Import throughput at the median (entries/s and MB/s of the file)',
    columns: ['file', 'case', 'median', 'entries/s', 'MB/s', 'vs raw better-sqlite3'],
    numericColumns: [2, 3, 4, 5],
    rows,
  };
}

export const importSuite: BenchSuite = {
  name: 'import',
  title: 'Import of the pi fixture files: strata import / POST /sessions/import against raw better-sqlite3',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const notices: string[] = [];
    const files: ImportFile[] = [];
    for (const fileName of fixtureNames) {
      const file = readImportFile(fileName);
      if (typeof file === 'string') {
        notices.push(file);
        progress.step('import', `SKIPPED: ${file}`);
      } else files.push(file);
    }
    if (files.length === 0) return { cases: [], notices, facts: {} };
    const settings = quick ? quickSettings : fullSettings;
    const footprints: Record<string, unknown> = {};
    for (const file of files) footprints[file.name] = await writtenFootprint(file, scratchDirectory);
    progress.step('import', 'starting the engine for POST /sessions/import');
    const { app, engine } = await startEngine(scratchDirectory);
    const cases: CaseResult[] = [];
    try {
      for (const file of files) {
        cases.push(
          ...(await measureCases('import', importCases(file, scratchDirectory, engine), settings, progress)),
        );
      }
      const saga = app.get(SagaRunner).status();
      const sagaStatus = {
        state: saga.state,
        handledPosition: saga.handledPosition?.toString() ?? null,
        eventsSeen: saga.eventsSeen,
        eventsDelivered: saga.eventsDelivered,
        commandsRun: saga.commandsRun,
        eventsGivenUp: saga.eventsGivenUp,
      };
      notices.push(
        'The raw baseline neither validates nor migrates (the fixtures are v1 files; Strata migrates them to v3, ' +
          'adds ids, checks every parent reference, and seals each event into the stream hash chain), so it is the floor.',
        'The engine runs in this process with tokenizer chars4 (the http suite does the same); with the default ' +
          'o200k, the first read of an imported session also counts its tokens (see suite context).',
      );
      return {
        cases,
        notices,
        tables: [throughputTable(cases, files)],
        facts: {
          settings,
          files: files.map((file) => ({
            name: file.name,
            megabytes: Math.round(file.megabytes * 1000) / 1000,
            entries: file.entries,
            headerSessionId: headerSessionId(file.bytes),
          })),
          written: footprints,
          engine: { tokenizer: 'chars4', sagas: sagaStatus },
        },
      };
    } finally {
      await app.close();
    }
  },
};
