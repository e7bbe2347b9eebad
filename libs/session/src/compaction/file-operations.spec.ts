import type { AgentMessage } from '../entries/messages';
import {
  addFileLists,
  computeFileLists,
  createFileOperationsCollector,
  fileOperationsOfMessages,
  toFileOperations,
} from './file-operations';

function assistantCalling(...calls: { name: string; arguments: Record<string, unknown> }[]): AgentMessage {
  return {
    role: 'assistant',
    content: calls.map((call, index) => ({ type: 'toolCall', id: `c${index}`, ...call })),
    provider: 'p',
    model: 'm',
    stopReason: 'toolUse',
    timestamp: 0,
  };
}

describe('file operations', () => {
  it('take read, write and edit calls with a string path, and nothing else', () => {
    const operations = fileOperationsOfMessages([
      assistantCalling(
        { name: 'read', arguments: { path: 'r.ts' } },
        { name: 'write', arguments: { path: 'w.ts' } },
        { name: 'edit', arguments: { path: 'e.ts' } },
        { name: 'edit', arguments: { path: 42 } },
        { name: 'bash', arguments: { path: 'b.ts' } },
        { name: 'grep', arguments: { path: 'g.ts' } },
      ),
      { role: 'user', content: 'read(path="u.ts")', timestamp: 0 },
    ]);
    expect([...operations.read]).toEqual(['r.ts']);
    expect([...operations.written]).toEqual(['w.ts']);
    expect([...operations.edited]).toEqual(['e.ts']);
  });

  it('list modified = edited ∪ written and read = read − modified, both sorted', () => {
    const operations = fileOperationsOfMessages([
      assistantCalling(
        { name: 'read', arguments: { path: 'z.ts' } },
        { name: 'read', arguments: { path: 'b.ts' } },
        { name: 'read', arguments: { path: 'a.ts' } },
        { name: 'edit', arguments: { path: 'b.ts' } },
        { name: 'write', arguments: { path: 'c.ts' } },
        { name: 'edit', arguments: { path: 'B.ts' } },
      ),
    ]);
    expect(computeFileLists(operations)).toEqual({
      readFiles: ['a.ts', 'z.ts'],
      modifiedFiles: ['B.ts', 'b.ts', 'c.ts'],
    });
  });

  it('count the modified files of an earlier summary as edits', () => {
    const collector = createFileOperationsCollector();
    addFileLists(collector, { readFiles: ['r.ts'], modifiedFiles: ['m.ts'] });
    const operations = toFileOperations(collector);
    expect([...operations.edited]).toEqual(['m.ts']);
    expect([...operations.read]).toEqual(['r.ts']);
  });
});
