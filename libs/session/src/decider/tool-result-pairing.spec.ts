import { DeciderSpecification } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import { sessionDecider } from './decide';
import { appended, assistant, started, startedChain, toolResult, user } from './decider-spec-data';
import { SessionDomainError } from './session-domain-error';

const spec = DeciderSpecification.for(sessionDecider);

const live = (entries: readonly SessionEntry[]) =>
  ({ type: 'AppendEntries', data: { entries, pairToolResults: true } }) as const;

const unpaired = (toolCallId: string) => (error: SessionDomainError) =>
  error.code === 'conflict' &&
  error.details.reason === 'tool_result_unpaired' &&
  error.details.toolCallId === toolCallId;

/** A tool result answering `toolCallId`, whatever its parent. */
function resultFor(id: string, parentId: string, toolCallId: string): SessionEntry {
  const entry = toolResult(id, parentId);
  if (entry.type !== 'message' || entry.message.role !== 'toolResult') throw new Error('not a result');
  return { ...entry, message: { ...entry.message, toolCallId } };
}

/** An assistant message with two tool calls, `call-<id>-a` and `call-<id>-b`. */
function twoCalls(id: string, parentId: string): SessionEntry {
  const entry = assistant(id, parentId);
  if (entry.type !== 'message' || entry.message.role !== 'assistant') throw new Error('not an answer');
  const call = (suffix: string) => ({
    type: 'toolCall' as const,
    id: `call-${id}-${suffix}`,
    name: 'read',
    arguments: { path: `${suffix}.ts` },
  });
  return { ...entry, message: { ...entry.message, content: [call('a'), call('b')] } };
}

describe('given a session whose leaf answered every call (u1 → a1 → t1 → u2 → a2 → t2)', () => {
  it('when a live result names a call already answered, then it is refused naming the call', () => {
    spec
      .given(startedChain)
      .when(live([resultFor('t3', 't2', 'call-a2')]))
      .thenThrows(SessionDomainError, unpaired('call-a2'));
  });

  it('when a live result names a call of an older answer, then it is refused', () => {
    spec
      .given(startedChain)
      .when(live([resultFor('t3', 't2', 'call-a1')]))
      .thenThrows(SessionDomainError, unpaired('call-a1'));
  });

  it('when a live result is parented where no answer precedes it, then it is refused', () => {
    spec
      .given([started, appended(user('u1', null))])
      .when(live([resultFor('t1', 'u1', 'call-x')]))
      .thenThrows(SessionDomainError, unpaired('call-x'));
  });

  it('when a live result answers a call made on another branch, then it is refused', () => {
    spec
      .given([...startedChain, appended(assistant('b1', 'u2'))])
      .when(live([resultFor('t4', 't2', 'call-b1')]))
      .thenThrows(SessionDomainError, unpaired('call-b1'));
  });

  it('when a batch holds an answer and its result, then both are appended', () => {
    const batch = [user('u3', 't2'), assistant('a3', 'u3'), toolResult('t3', 'a3')];
    spec.given(startedChain).when(live(batch)).then(batch.map(appended));
  });

  it('when a batch answers the same call twice, then the second result is refused', () => {
    spec
      .given(startedChain)
      .when(
        live([
          user('u3', 't2'),
          assistant('a3', 'u3'),
          toolResult('t3', 'a3'),
          resultFor('t4', 't3', 'call-a3'),
        ]),
      )
      .thenThrows(SessionDomainError, unpaired('call-a3'));
  });

  it('when the same results are imported (no pairing asked), then they are kept as written', () => {
    spec
      .given(startedChain)
      .when({ type: 'AppendEntries', data: { entries: [resultFor('t3', 't2', 'call-a2')] } })
      .then([appended(resultFor('t3', 't2', 'call-a2'))]);
  });
});

describe('given an answer with two calls, one answered', () => {
  const given = [...startedChain, appended(user('u3', 't2')), appended(twoCalls('a3', 'u3'))];
  const first = resultFor('t3a', 'a3', 'call-a3-a');

  it('when the other call is answered under the first result, then it is appended', () => {
    const second = resultFor('t3b', 't3a', 'call-a3-b');
    spec
      .given([...given, appended(first)])
      .when(live([second]))
      .then([appended(second)]);
  });

  it('when the other call is answered after a user message, then it is still pending there', () => {
    const steer = user('u4', 't3a', 'Also check b.');
    const second = resultFor('t3b', 'u4', 'call-a3-b');
    spec
      .given([...given, appended(first), appended(steer)])
      .when(live([second]))
      .then([appended(second)]);
  });

  it('when the first call is answered again under its result, then it is refused', () => {
    spec
      .given([...given, appended(first)])
      .when(live([resultFor('t3c', 't3a', 'call-a3-a')]))
      .thenThrows(SessionDomainError, unpaired('call-a3-a'));
  });
});
