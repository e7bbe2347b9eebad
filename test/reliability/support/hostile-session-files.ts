// Generators of hostile pi session files for the fuzz tests: a small valid session (header and
// a few entries from @strata/testing's generator) with one to three damaging mutations, each
// from a named family (session-file-mutations/, grouped by kind of hostility), so a run can
// report how many cases of each family it tried. Lines are kept as strings or raw bytes
// (invalid UTF-8 only exists as bytes).
import fc from 'fast-check';
import type { SessionEntry, SessionHeader } from '@strata/session';
import { generatedSessionArbitrary } from '@strata/testing';
import {
  badHeader,
  badTimestamp,
  unknownType,
  usageOutOfBounds,
  wrongType,
} from './session-file-mutations/field-values';
import type { FileLine } from './session-file-mutations/file-lines';
import {
  hostileFamilies,
  type FamilyMutation,
  type HostileFamily,
} from './session-file-mutations/family-mutation';
import {
  escapedOddities,
  invalidUtf8,
  prototypeKeys,
  randomJson,
  randomText,
  truncatedLine,
} from './session-file-mutations/malformed-lines';
import { deepNesting, hugePayload } from './session-file-mutations/oversized';
import {
  duplicateId,
  parentCycle,
  strayFirstKept,
  unaddressableId,
} from './session-file-mutations/references';

export interface HostileSessionFile {
  /** The header first, then one line per entry (before mutation). */
  readonly lines: readonly FileLine[];
  /** The families of the mutations applied, in order. */
  readonly families: readonly HostileFamily[];
}

const familyArbitraries: Readonly<Record<HostileFamily, fc.Arbitrary<FamilyMutation>>> = {
  'huge-payload': hugePayload,
  'deep-nesting': deepNesting,
  'wrong-type': wrongType,
  'invalid-utf8': invalidUtf8,
  'unknown-type': unknownType,
  'parent-cycle': parentCycle,
  'duplicate-id': duplicateId,
  'truncated-line': truncatedLine,
  'random-json': randomJson,
  'random-text': randomText,
  'bad-header': badHeader,
  'prototype-keys': prototypeKeys,
  'escaped-oddities': escapedOddities,
  'unaddressable-id': unaddressableId,
  'bad-timestamp': badTimestamp,
  'usage-out-of-bounds': usageOutOfBounds,
  'stray-first-kept': strayFirstKept,
};

export interface HostileFileOptions {
  /** Families to draw from; every family by default. */
  readonly families?: readonly HostileFamily[];
  /** Leave the huge payloads out (for loops that must stay fast). */
  readonly withoutHuge?: boolean;
}

function serializedLines(header: SessionHeader, entries: readonly SessionEntry[]): FileLine[] {
  return [JSON.stringify(header), ...entries.map((entry) => JSON.stringify(entry))];
}

/** A small valid session with one to three hostile mutations. */
export function hostileSessionFileArbitrary(
  options: HostileFileOptions = {},
): fc.Arbitrary<HostileSessionFile> {
  const families = (options.families ?? hostileFamilies).filter(
    (family) => !(options.withoutHuge === true && family === 'huge-payload'),
  );
  const mutation = fc.oneof(
    ...families.map((family) => ({
      arbitrary: familyArbitraries[family],
      weight: family === 'huge-payload' ? 1 : 3,
    })),
  );
  return fc
    .record({
      session: generatedSessionArbitrary({ maxEntries: 10, maxSteps: 3, images: false }),
      sessionId: fc.uuid(),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    })
    .map(({ session, sessionId, mutations }) => {
      const lines = serializedLines({ ...session.header, id: sessionId }, session.entries);
      for (const { mutate } of mutations) mutate(lines);
      return { lines, families: mutations.map(({ family }) => family) };
    });
}

/** The file as bytes, each line ending in a newline. */
export function fileBytes(file: HostileSessionFile): Buffer {
  return Buffer.concat(
    file.lines.flatMap((line) => [
      typeof line === 'string' ? Buffer.from(line, 'utf8') : line,
      Buffer.from('\n'),
    ]),
  );
}

/** Whether any line is not valid UTF-8. */
export function hasInvalidUtf8(file: HostileSessionFile): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return file.lines.some((line) => {
    if (typeof line === 'string') return false;
    try {
      decoder.decode(line);
      return false;
    } catch {
      return true;
    }
  });
}

/** The file as text (invalid UTF-8 decoded the lossy way, as `readFileSync(…, 'utf8')` does). */
export function fileText(file: HostileSessionFile): string {
  return fileBytes(file).toString('utf8');
}
