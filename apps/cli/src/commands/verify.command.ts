// `strata verify`: checks a session's stream (or every stream, or an exported event file with no
// store) and reports that it holds or names each thing wrong: the first altered event of its hash
// chain, events the store records and the chain lacks (a cut tail), retention metadata, anchors
// the stream no longer matches (shorter than the anchor, or another hash there), and anchors
// refused for a bad signature. An erased stream holds, its erasure record standing for its events
// and anchors. Findings are printed on stdout (one JSON object with `--json`), with exit code 1;
// `--all` tells on stderr each stream it starts reading, since a big store takes a while.
import { resolve } from 'node:path';
import { type EventStore } from '@strata/event-store';
import {
  AnchorIndex,
  anchorLogIfAny,
  compareWithExport,
  describeLogFinding,
  describeNewestCheckpoint,
  logFileCandidates,
  logFileItems,
  verifyStoreWithLog,
  type StoreLogFinding,
  type StoreLogIntegrity,
  MAX_EVENT_LINE_BYTES,
  describeErasure,
  describeFinding,
  describeRefusedAnchor,
  fileLines,
  streamHolds,
  verifyEventLines,
  verifyStreamIntegrity,
  type AnchorCandidate,
  type IntegrityFinding,
  type RefusedAnchors,
  type StoreIntegrityProgress,
  type StreamIntegrity,
} from '@strata/integrity';
import { sessionStreamName } from '@strata/session';
import { existsSync } from 'node:fs';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import {
  anchorFile,
  anchorFilePath,
  anchorOptionsHelp,
  anchorOptionsUsage,
  publicKeysOf,
  storeAnchors,
} from '../shared/anchor-options';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { jsonLine } from '../shared/json-output';
import { parseCommandLine } from '../shared/options';

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

function anchorsNote(matched: number, answered: number): string {
  const parts: string[] = [];
  if (matched > 0) parts.push(`${plural(matched, 'anchor')} matched`);
  if (answered > 0) parts.push(`${plural(answered, 'anchor')} answered by the erasure record`);
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

/** The lines of one stream's result. */
function streamLines(result: StreamIntegrity): string[] {
  const lines = result.findings.map(describeFinding);
  if (result.erasure !== undefined && result.events === 0) {
    if (lines.length === 0)
      return [
        `${describeErasure(result.erasure)}${anchorsNote(result.anchorsMatched, result.anchorsAnsweredByErasure)}`,
      ];
    return [describeErasure(result.erasure), ...lines];
  }
  if (lines.length > 0) return lines;
  const erased = result.erasure !== undefined ? [describeErasure(result.erasure)] : [];
  return [
    ...erased,
    `${result.streamId}: chain holds (${plural(result.events, 'event')}, head ${result.headHash})${anchorsNote(result.anchorsMatched, result.anchorsAnsweredByErasure)}`,
  ];
}

function refusedLines(refused: RefusedAnchors): string[] {
  const lines = refused.named.map(describeRefusedAnchor);
  const more = refused.total - refused.named.length;
  if (more > 0) lines.push(`${plural(more, 'more anchor')} refused`);
  return lines;
}

/** A stream's result as `--json` prints it: each finding with its line of text. */
function streamJson(result: StreamIntegrity): Record<string, unknown> {
  return {
    ...result,
    holds: streamHolds(result),
    findings: result.findings.map((finding: IntegrityFinding) => ({
      ...finding,
      description: describeFinding(finding),
    })),
  };
}

function refusedJson(refused: RefusedAnchors): Record<string, unknown> {
  return { total: refused.total, named: refused.named.map((anchor) => describeRefusedAnchor(anchor)) };
}

function printProgress(io: CliIo): (progress: StoreIntegrityProgress) => void {
  return (progress) => {
    if (progress.kind === 'events') {
      io.stderr(
        `verify: ${plural(progress.events, 'event')} read (${plural(progress.streams, 'stream')} so far)\n`,
      );
      return;
    }
    if (progress.kind === 'stream') {
      io.stderr(
        `verify: stream ${progress.streams}: ${progress.streamId} (${plural(progress.events, 'event')} read before it)\n`,
      );
      return;
    }
    io.stderr(
      `verify: ${plural(progress.streams, 'stream')} read (${plural(progress.events, 'event')}); checking each against the store's records\n`,
    );
  };
}

function print(io: CliIo, lines: readonly string[]): void {
  for (const line of lines) io.stdout(`${line}\n`);
}

async function withAnchorIndex<Result>(
  candidates: AsyncIterable<AnchorCandidate>,
  io: CliIo,
  publicKeyFiles: readonly string[],
  inScope: ((streamId: string) => boolean) | undefined,
  work: (index: AnchorIndex) => Promise<Result>,
): Promise<Result> {
  const index = await AnchorIndex.build(candidates, publicKeysOf(io, publicKeyFiles), inScope);
  try {
    return await work(index);
  } finally {
    index.close();
  }
}

async function verifyFile(
  io: CliIo,
  file: string,
  anchors: string | undefined,
  publicKeyFiles: readonly string[],
  json: boolean,
): Promise<number> {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new CliError(`cannot read ${file}: no such file`);
  const candidates =
    anchors !== undefined
      ? anchorFile(io, anchors, publicKeysOf(io, publicKeyFiles))
      : (async function* () {})();
  const result = await withAnchorIndex(candidates, io, publicKeyFiles, undefined, (index) =>
    verifyEventLines(fileLines(path, MAX_EVENT_LINE_BYTES), { anchors: index }),
  );
  if (json) {
    const ok = result.ok && (result.unreadable !== undefined || result.streams.length > 0);
    io.stdout(
      jsonLine({
        ok,
        file,
        streams: result.streams.map(streamJson),
        refusedAnchors: refusedJson(result.refusedAnchors),
        ...(result.unreadable !== undefined ? { unreadable: result.unreadable } : {}),
      }),
    );
    return ok ? 0 : 1;
  }
  for (const stream of result.streams) print(io, streamLines(stream));
  print(io, refusedLines(result.refusedAnchors));
  if (result.unreadable !== undefined) {
    io.stdout(`${file}:${result.unreadable.line}: ${result.unreadable.reason}; verification stopped there\n`);
  } else if (result.streams.length === 0) {
    io.stdout(`${file}: holds no event\n`);
    return 1;
  }
  return result.ok ? 0 : 1;
}

async function verifySession(
  io: CliIo,
  store: EventStore,
  sessionId: string,
  anchors: string | undefined,
  publicKeyFiles: readonly string[],
  json: boolean,
): Promise<number> {
  const streamId = sessionStreamName(sessionId);
  const candidates =
    anchors !== undefined
      ? anchorFile(io, anchors, publicKeysOf(io, publicKeyFiles))
      : storeAnchors(store, streamId);
  const inScope = (stream: string) => stream === streamId;
  return withAnchorIndex(candidates, io, publicKeyFiles, inScope, async (index) => {
    const result = await verifyStreamIntegrity(store, streamId, { anchors: index });
    const refused = index.refused((stream) => stream === streamId);
    if (result.events === 0 && result.erasure === undefined && streamHolds(result) && refused.total === 0) {
      throw new CliError(`session ${sessionId} is not in the store`);
    }
    const ok = streamHolds(result) && refused.total === 0;
    if (json)
      io.stdout(
        jsonLine({ ok, sessionId, stream: streamJson(result), refusedAnchors: refusedJson(refused) }),
      );
    else print(io, [...streamLines(result), ...refusedLines(refused)]);
    return ok ? 0 : 1;
  });
}

/** The store's signed log as `--json` prints it. */
function logJson(log: StoreLogIntegrity, findings: readonly StoreLogFinding[]): Record<string, unknown> {
  return {
    chained: log.chained,
    entries: log.entries,
    legacyAnchors: log.legacyAnchors,
    newestCheckpoint: log.newestCheckpoint ?? null,
    findings: findings.map((finding) => ({ ...finding, description: describeLogFinding(finding) })),
  };
}

async function verifyAll(
  io: CliIo,
  store: EventStore,
  anchors: string | undefined,
  publicKeyFiles: readonly string[],
  json: boolean,
): Promise<number> {
  const keys = publicKeysOf(io, publicKeyFiles);
  const exportedPath = anchors !== undefined ? anchorFilePath(io, anchors) : undefined;
  const verification = await verifyStoreWithLog(store, {
    keys,
    ...(exportedPath !== undefined ? { exported: logFileCandidates(exportedPath, anchors!, keys) } : {}),
    onProgress: printProgress(io),
  });
  const log = anchorLogIfAny(store);
  const logFindings: StoreLogFinding[] = [...verification.log.findings];
  if (exportedPath !== undefined && log !== undefined) {
    logFindings.push(...(await compareWithExport(log, logFileItems(exportedPath))));
  }
  const result = verification.streams;
  const ok = result.ok && logFindings.length === 0;
  if (json) {
    io.stdout(
      jsonLine({
        ...result,
        ok,
        failed: result.failed.map(streamJson),
        erased: result.erased.map(streamJson),
        refusedAnchors: refusedJson(result.refusedAnchors),
        log: logJson(verification.log, logFindings),
      }),
    );
    return ok ? 0 : 1;
  }
  for (const stream of result.failed) print(io, streamLines(stream));
  for (const stream of result.erased) print(io, streamLines(stream));
  print(io, refusedLines(result.refusedAnchors));
  print(
    io,
    logFindings.map((finding) => describeLogFinding(finding)),
  );
  if (verification.log.chained) print(io, [describeNewestCheckpoint(verification.log.newestCheckpoint)]);
  const anchorsNoted =
    result.anchorsMatched > 0 ? `, ${plural(result.anchorsMatched, 'anchor')} matched` : '';
  const logNoted = verification.log.chained
    ? `, ${`${verification.log.entries} signed log entr${verification.log.entries === 1 ? 'y' : 'ies'}`} chained`
    : '';
  io.stdout(
    ok
      ? `every chain holds (${plural(result.streams, 'stream')}, ${plural(result.events, 'event')}${anchorsNoted}${logNoted})\n`
      : `${result.failed.length} of ${plural(result.streams, 'stream')} broken${result.refusedAnchors.total > 0 ? `, ${plural(result.refusedAnchors.total, 'anchor')} refused` : ''}${logFindings.length > 0 ? `, ${plural(logFindings.length, 'finding')} in the signed log` : ''} (${plural(result.events, 'event')} read)\n`,
  );
  return ok ? 0 : 1;
}

export const verifyCommand: CommandImplementation = {
  name: 'verify',
  usage:
    `strata verify [<sessionId>|--all] ${storeOptionUsage} ${anchorOptionsUsage} [--json]\n` +
    `strata verify --file <events.jsonl> ${anchorOptionsUsage} [--json]\n` +
    '  --all: check every stream of the store (the default without a session id); progress goes to stderr\n' +
    `  ${storeOptionHelp}\n${anchorOptionsHelp}\n` +
    '  --file: an event log written by `strata export <sessionId> --events`, checked with no store\n' +
    '  --json: print the result as one JSON object (ok, the streams with their findings, refused anchors)\n' +
    '  Exits 1 when anything is wrong (each finding is printed).\n' +
    'examples:\n' +
    '  strata verify 0190a8f0-7c1d-7000-8000-000000000001\n' +
    '  strata verify --all --json > verification.json\n' +
    '  strata verify --file events.jsonl --anchors anchors.jsonl --public-key signing-key.pub.pem',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        all: { type: 'boolean', default: false },
        store: { type: 'string' },
        anchors: { type: 'string' },
        'public-key': { type: 'string', multiple: true },
        file: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const publicKeyFiles = values['public-key'] ?? [];
    if (positionals.length > 1) throw new CliError('verify takes at most one session id', 2);
    const [sessionId] = positionals;
    if (sessionId !== undefined && values.all) throw new CliError('give a session id or --all, not both', 2);
    if (values.file !== undefined) {
      if (sessionId !== undefined || values.all || values.store !== undefined)
        throw new CliError('--file checks a file with no store: give no session id, --all or --store', 2);
      return verifyFile(io, values.file, values.anchors, publicKeyFiles, values.json);
    }
    return withEventStore(values.store, io, async (store) => {
      if (sessionId !== undefined) {
        return verifySession(io, store, sessionId, values.anchors, publicKeyFiles, values.json);
      }
      return verifyAll(io, store, values.anchors, publicKeyFiles, values.json);
    });
  },
};
