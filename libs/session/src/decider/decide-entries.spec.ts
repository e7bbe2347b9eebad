import { DeciderSpecification } from '@strata/testing';
import { sessionDecider } from './decide';
import {
  appended,
  assistant,
  branchSummary,
  compaction,
  header,
  label,
  started,
  startedChain,
  toolResult,
  user,
} from './decider-spec-data';
import type { SessionEntry } from '../entries/entries';
import type { RecordPruning } from './session-commands';
import { SessionDomainError, type SessionErrorCode } from './session-domain-error';
import type { SessionEvent } from './session-events';

const spec = DeciderSpecification.for(sessionDecider);
const withCode = (code: SessionErrorCode) => (error: SessionDomainError) => error.code === code;

describe('an empty session', () => {
  it('starts with a v3 header', () => {
    spec
      .given()
      .when({ type: 'StartSession', data: { header } })
      .then([{ type: 'SessionStarted', data: { header } }]);
  });

  it('refuses a header of an older version (imports migrate first)', () => {
    spec
      .given()
      .when({ type: 'StartSession', data: { header: { ...header, version: 2 } } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses every other command until it is started', () => {
    spec
      .given()
      .when({ type: 'AppendEntries', data: { entries: [user('u1', null)] } })
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given()
      .when({ type: 'MoveLeaf', data: { leafId: null } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });
});

describe('a started session', () => {
  it('starts only once', () => {
    spec
      .given([started])
      .when({ type: 'StartSession', data: { header } })
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('appends a root entry, then children of entries earlier in the same batch', () => {
    const entries = [user('u1', null), assistant('a1', 'u1'), toolResult('t1', 'a1')];
    spec
      .given([started])
      .when({ type: 'AppendEntries', data: { entries, expectedLeafId: null } })
      .then(entries.map(appended));
  });

  it('accepts a label whose target comes earlier in the same batch', () => {
    const entries = [user('u1', null), label('l1', 'u1', 'u1', 'first prompt')];
    spec.given([started]).when({ type: 'AppendEntries', data: { entries } }).then(entries.map(appended));
  });

  it('refuses an empty batch', () => {
    spec
      .given([started])
      .when({ type: 'AppendEntries', data: { entries: [] } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });
});

describe('a session with a chain of entries', () => {
  it('appends a child of any existing entry (a new branch)', () => {
    const branch = user('u3', 'a1');
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [branch] } })
      .then([appended(branch)]);
  });

  it('refuses an entry id that already exists', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [user('a1', 't2')] } })
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('refuses an id repeated within one batch', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [user('u3', 't2'), user('u3', 't2')] } })
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('refuses a parent that does not exist', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [user('u3', 'missing')] } })
      .thenThrows(
        SessionDomainError,
        (error) => error.code === 'not_found' && error.details.parentId === 'missing',
      );
  });

  it('refuses a batch when the leaf is not the one the writer expected', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [user('u3', 'a2')], expectedLeafId: 'a2' } })
      .thenThrows(
        SessionDomainError,
        (error) =>
          error.code === 'conflict' &&
          error.details.reason === 'leaf_conflict' &&
          error.details.currentLeafId === 't2' &&
          error.details.expectedLeafId === 'a2',
      );
  });

  it('accepts a batch when the leaf is the one the writer expected', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [user('u3', 't2')], expectedLeafId: 't2' } })
      .then([appended(user('u3', 't2'))]);
  });

  it('moves the leaf to an existing entry, recording where it was', () => {
    spec
      .given(startedChain)
      .when({ type: 'MoveLeaf', data: { leafId: 'a1' } })
      .then([{ type: 'LeafMoved', data: { leafId: 'a1', previousLeafId: 't2' } }]);
  });

  it('moves the leaf before the first entry (null)', () => {
    spec
      .given(startedChain)
      .when({ type: 'MoveLeaf', data: { leafId: null } })
      .then([{ type: 'LeafMoved', data: { leafId: null, previousLeafId: 't2' } }]);
  });

  it('records on the move a branch summary asked for and declined, with the instructions given', () => {
    spec
      .given(startedChain)
      .when({
        type: 'MoveLeaf',
        data: { leafId: 'a1', summaryDeclined: 'disabled', customInstructions: 'only the failures' },
      })
      .then([
        {
          type: 'LeafMoved',
          data: {
            leafId: 'a1',
            previousLeafId: 't2',
            summaryDeclined: 'disabled',
            customInstructions: 'only the failures',
          },
        },
      ]);
    spec
      .given(startedChain)
      .when({ type: 'MoveLeaf', data: { leafId: 'a1', customInstructions: 'only the failures' } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('treats a move to the current leaf as a no-op', () => {
    spec
      .given(startedChain)
      .when({ type: 'MoveLeaf', data: { leafId: 't2' } })
      .thenNothingHappened();
  });

  it('refuses to move the leaf to an unknown entry', () => {
    spec
      .given(startedChain)
      .when({ type: 'MoveLeaf', data: { leafId: 'missing' } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('labels an existing entry', () => {
    const entry = label('l1', 't2', 'u1', 'start of bug hunt');
    spec
      .given(startedChain)
      .when({ type: 'SetLabel', data: { entry } })
      .then([appended(entry)]);
  });

  it('refuses a label for an unknown target, whether set directly or appended', () => {
    spec
      .given(startedChain)
      .when({ type: 'SetLabel', data: { entry: label('l1', 't2', 'missing', 'x') } })
      .thenThrows(SessionDomainError, withCode('not_found'));
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [label('l1', 't2', 'missing', 'x')] } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('refuses a label whose own id is taken', () => {
    spec
      .given(startedChain)
      .when({ type: 'SetLabel', data: { entry: label('u1', 't2', 'u1', 'x') } })
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });
});

describe('a session with tool results', () => {
  const pruneT1 = {
    type: 'RecordPruning',
    data: { prunedAt: 1_771_146_100_000, results: [{ entryId: 't1', tokens: 30_000 }], tokensSaved: 29_990 },
  } satisfies RecordPruning;

  it('records the pruning of existing tool results', () => {
    spec
      .given(startedChain)
      .when(pruneT1)
      .then([{ type: 'ToolOutputsPruned', data: pruneT1.data }]);
  });

  it('records which answer the pruning came after, and the state tells what it saved', () => {
    const afterAnswer = {
      ...pruneT1,
      data: { ...pruneT1.data, answerEntryId: 'a1' },
    } satisfies RecordPruning;
    spec
      .given(startedChain)
      .when(afterAnswer)
      .then([{ type: 'ToolOutputsPruned', data: afterAnswer.data }]);
    const state = [...startedChain, { type: 'ToolOutputsPruned', data: afterAnswer.data } as const].reduce(
      sessionDecider.evolve,
      sessionDecider.initialState(),
    );
    expect(state.status === 'active' && state.pruningSavedAfter('a1')).toBe(29_990);
    expect(state.status === 'active' && state.pruningSavedAfter('t1')).toBeUndefined();
  });

  it('refuses a pruning after an answer that is not an entry of the session', () => {
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, answerEntryId: 'missing' } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('refuses to prune an entry that is not a tool result', () => {
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, results: [{ entryId: 'a1', tokens: 10 }] } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('refuses to prune an unknown entry', () => {
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, results: [{ entryId: 'missing', tokens: 10 }] } })
      .thenThrows(SessionDomainError, withCode('not_found'));
  });

  it('refuses to prune a result twice', () => {
    const prunedOnce: SessionEvent = { type: 'ToolOutputsPruned', data: pruneT1.data };
    spec
      .given([...startedChain, prunedOnce])
      .when(pruneT1)
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('refuses to prune a result imported already pruned', () => {
    spec
      .given([started, appended(user('u1', null)), appended(toolResult('t1', 'u1', 1_700_000_000_000))])
      .when(pruneT1)
      .thenThrows(SessionDomainError, withCode('already_exists'));
  });

  it('refuses a batch that lists a result twice, an empty batch and negative figures', () => {
    const twice = [
      { entryId: 't1', tokens: 10 },
      { entryId: 't1', tokens: 10 },
    ];
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, results: twice } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, results: [] } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(startedChain)
      .when({ ...pruneT1, data: { ...pruneT1.data, tokensSaved: -1 } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });

  it('prunes results of other branches too (the decision of what to prune is made elsewhere)', () => {
    spec
      .given([...startedChain, { type: 'LeafMoved', data: { leafId: 'u1', previousLeafId: 't2' } }])
      .when({ ...pruneT1, data: { ...pruneT1.data, results: [{ entryId: 't2', tokens: 5 }] } })
      .then([
        { type: 'ToolOutputsPruned', data: { ...pruneT1.data, results: [{ entryId: 't2', tokens: 5 }] } },
      ]);
  });
});

describe('the input rules, whichever way an entry comes in', () => {
  it('refuses a header whose id or timestamp breaks them', () => {
    for (const broken of [
      { ...header, id: 'a\nb' },
      { ...header, id: '..' },
      { ...header, timestamp: 'now' },
    ]) {
      spec
        .given()
        .when({ type: 'StartSession', data: { header: broken } })
        .thenThrows(SessionDomainError, withCode('invalid'));
    }
  });

  it('refuses an entry whose id, parent, timestamp or usage breaks them, naming the field', () => {
    const answer = assistant('a3', 't2');
    const broken: SessionEntry[] = [
      user('u\u0000', 't2'),
      user('u3', 'x'.repeat(513)),
      { ...user('u3', 't2'), timestamp: '2026-02-15' },
      answer.type === 'message' && answer.message.role === 'assistant'
        ? {
            ...answer,
            message: { ...answer.message, usage: { input: 1e308, output: 0, cacheRead: 0, cacheWrite: 0 } },
          }
        : answer,
    ];
    for (const entry of broken) {
      spec
        .given(startedChain)
        .when({ type: 'AppendEntries', data: { entries: [entry] } })
        .thenThrows(
          SessionDomainError,
          (error) => error.code === 'invalid' && typeof error.details['field'] === 'string',
        );
    }
  });

  it('refuses a label or branch summary whose reference breaks them', () => {
    spec
      .given(startedChain)
      .when({ type: 'SetLabel', data: { entry: label('l1', 't2', '\u2028') } })
      .thenThrows(SessionDomainError, withCode('invalid'));
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [branchSummary('b1', 't2', '')] } })
      .thenThrows(SessionDomainError, withCode('invalid'));
  });
});

describe("a compaction entry's first kept entry", () => {
  it('may be any entry on the path to the compaction, up to its parent', () => {
    for (const firstKept of ['u1', 'u2', 't2']) {
      const entry = compaction('k1', 't2', firstKept);
      spec
        .given(startedChain)
        .when({ type: 'AppendEntries', data: { entries: [entry] } })
        .then([appended(entry)]);
    }
  });

  it('may be an entry earlier in the same batch', () => {
    const entries = [user('u3', 't2'), assistant('a3', 'u3'), compaction('k1', 'a3', 'u3')];
    spec.given(startedChain).when({ type: 'AppendEntries', data: { entries } }).then(entries.map(appended));
  });

  it.each([
    ['an unknown entry', [compaction('k1', 't2', 'missing')]],
    ['an entry on another branch', [user('u3', 'a1'), compaction('k1', 't2', 'u3')]],
    ['the compaction itself', [compaction('k1', 't2', 'k1')]],
    ['an entry after it', [compaction('k1', 't2', 'u4'), user('u4', 'k1')]],
    ['anything, for a compaction at the root', [compaction('k1', null, 'u1')]],
  ])('refuses %s, and nothing is appended', (_what, entries) => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries } })
      .thenThrows(
        SessionDomainError,
        (error) => error.code === 'invalid' && /is not an entry on its path/.test(error.message),
      );
  });

  it('is checked on a tree thousands of entries deep', () => {
    const deep = Array.from({ length: 5_000 }, (_, index) =>
      user(`d${index}`, index === 0 ? 't2' : `d${index - 1}`),
    );
    const compactions = Array.from({ length: 500 }, (_, index) =>
      compaction(`k${index}`, index === 0 ? 'd4999' : `k${index - 1}`, 'u1'),
    );
    spec
      .given([...startedChain, ...deep.map(appended)])
      .when({ type: 'AppendEntries', data: { entries: compactions } })
      .then(compactions.map(appended));
  });
});
