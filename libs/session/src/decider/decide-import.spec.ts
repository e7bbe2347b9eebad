import { DeciderSpecification } from '@strata/testing';
import { appended, chain, header, started, startedChain, user } from './decider-spec-data';
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
        .thenThrows(SessionImportConflictError, differing('entry 2 differs (a1 in the file, a1 stored)'));
    });

    it('when the file is longer, then it is a conflict naming both lengths', () => {
      spec
        .given(startedChain)
        .when(importing([...chain, user('u3', 't2')]))
        .thenThrows(SessionImportConflictError, differing('the store holds 6 entries, the file 7'));
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
