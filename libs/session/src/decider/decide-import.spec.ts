import { DeciderSpecification } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import { appended, assistant, chain, header, started, startedChain, user } from './decider-spec-data';
import { SessionDomainError } from './session-domain-error';
import {
  importDecider,
  sameJsonValue,
  SessionImportConflictError,
  type ImportSessionCommand,
} from './decide-import';

const spec = DeciderSpecification.for(importDecider);
const importing = (entries = chain, fileHeader = header): ImportSessionCommand => ({
  type: 'ImportSession',
  data: { header: fileHeader, entries },
});
const importingLines = (entries: readonly SessionEntry[]): ImportSessionCommand => ({
  type: 'ImportSession',
  data: { header, entries, entryLines: entries.map((_, index) => index + 2) },
});
const differing = (reason: string) => (error: SessionImportConflictError) =>
  error.sessionId === header.id && error.difference === reason;

describe('importing a session file', () => {
  describe('given an empty stream', () => {
    it('when the file is imported, then the session starts and every entry is appended in order', () => {
      spec.given().when(importing()).then(startedChain);
    });

    it('when the file ends on a side branch, then its last entry is the leaf without a move', () => {
      // appending leaves the leaf on the newest entry, which is already the file's last one
      spec
        .given()
        .when(importing([...chain, user('u3', 'a1')]))
        .then([...startedChain, appended(user('u3', 'a1'))]);
    });

    it('when the file holds only its header, then the session starts empty', () => {
      spec.given().when(importing([])).then([started]);
    });
  });

  describe('given the stream already holds this very session', () => {
    it('when the same file is imported again, then nothing happens', () => {
      spec.given(startedChain).when(importing()).thenNothingHappened();
    });
  });

  describe('given the stream holds the first entries of the file (the file grew)', () => {
    const grown = [...chain, user('u3', 't2'), assistant('a3', 'u3')];

    it('when the grown file is imported, then only its new entries are appended, in order', () => {
      spec
        .given(startedChain)
        .when(importing(grown))
        .then([appended(user('u3', 't2')), appended(assistant('a3', 'u3'))]);
    });

    it('when a new entry names a parent the session does not hold, then it is refused as on any append', () => {
      spec
        .given(startedChain)
        .when(importing([...chain, user('u3', 'nowhere')]))
        .thenThrows(SessionDomainError, (error: SessionDomainError) => error.code === 'not_found');
    });
  });

  describe('given the stream holds the session with other content', () => {
    it('when the header differs, then it is a conflict naming the header', () => {
      spec
        .given(startedChain)
        .when(importing(chain, { ...header, cwd: '/elsewhere' }))
        .thenThrows(SessionImportConflictError, differing('the session headers differ'));
    });

    it('when an entry differs, then it is a conflict naming its position and ids', () => {
      const changed = [chain[0]!, user('a1', 'u1', 'another text'), ...chain.slice(2)];
      spec
        .given(startedChain)
        .when(importing(changed))
        .thenThrows(SessionImportConflictError, differing('entry 2 differs: a1 in the file, a1 stored'));
    });

    it('when an entry of a grown file differs, then nothing is appended and the conflict names its line and id', () => {
      const changed = [...chain.slice(0, 3), user('x9', 'a1'), ...chain.slice(4), user('u3', 't2')];
      spec
        .given(startedChain)
        .when(importingLines(changed))
        .thenThrows(
          SessionImportConflictError,
          (error: SessionImportConflictError) =>
            error.difference === `line 5 (entry 4) differs: x9 in the file, ${chain[3]!.id} stored` &&
            error.firstDifference?.line === 5 &&
            error.firstDifference.entryId === 'x9' &&
            error.storedEntries === 6,
        );
    });

    it('when the file is shorter than the stored session, then it is a conflict naming both lengths', () => {
      spec
        .given(startedChain)
        .when(importing(chain.slice(0, 4)))
        .thenThrows(
          SessionImportConflictError,
          differing("the store holds 6 entries, the file only 4 (the store's first 4)"),
        );
    });
  });

  describe('given a part of a file being followed (its entries from fromEntry on)', () => {
    const part = (fromEntry: number, entries: readonly SessionEntry[]): ImportSessionCommand => ({
      type: 'ImportSession',
      data: { header, entries, fromEntry, entryLines: entries.map((_, index) => fromEntry + index + 2) },
    });

    it('when the part starts right after the stored entries, then all of it is appended', () => {
      spec
        .given(startedChain)
        .when(part(6, [user('u3', 't2')]))
        .then([appended(user('u3', 't2'))]);
    });

    it('when the part starts inside the stored entries, then only what the store lacks is appended', () => {
      spec
        .given(startedChain)
        .when(part(4, [...chain.slice(4), user('u3', 't2')]))
        .then([appended(user('u3', 't2'))]);
    });

    it('when the part ends before the stored entries do, then nothing happens (the store is ahead)', () => {
      spec
        .given(startedChain)
        .when(part(2, chain.slice(2, 4)))
        .thenNothingHappened();
    });

    it('when the part starts after entries the store lacks, then it is a conflict naming the gap', () => {
      spec
        .given(startedChain)
        .when(part(7, [user('u4', 't2')]))
        .thenThrows(
          SessionImportConflictError,
          differing('the store holds 6 entries, fewer than the 7 before this part of the file'),
        );
    });

    it('when a shared entry differs, then it is a conflict naming its line', () => {
      spec
        .given(startedChain)
        .when(part(5, [user('zz', 'a1'), user('u3', 'zz')]))
        .thenThrows(
          SessionImportConflictError,
          differing(`line 7 (entry 6) differs: zz in the file, ${chain[5]!.id} stored`),
        );
    });

    it('when the first part of a new file arrives, then the session starts with it', () => {
      spec.given().when(part(0, chain)).then(startedChain);
    });

    it('when a later part arrives for a session the store does not hold, then it is a conflict', () => {
      spec
        .given()
        .when(part(3, chain.slice(3)))
        .thenThrows(
          SessionImportConflictError,
          differing('the store holds no entries, fewer than the 3 before this part of the file'),
        );
    });
  });
});

describe('JSON equality of stored and imported content', () => {
  it('ignores key order and keys holding undefined, as JSON written and read back does', () => {
    expect(sameJsonValue({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJsonValue({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it('tells apart values, lengths, arrays from objects and null from an object', () => {
    expect(sameJsonValue({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJsonValue([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJsonValue([], {})).toBe(false);
    expect(sameJsonValue(null, {})).toBe(false);
    expect(sameJsonValue({ a: 1 }, { a: 1, b: 0 })).toBe(false);
    expect(sameJsonValue({ a: 1, b: 0 }, { a: 1, c: 0 })).toBe(false);
  });
});
