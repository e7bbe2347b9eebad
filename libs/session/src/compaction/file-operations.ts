// File activity carried through summaries (reference §5.3): which files the assistant read,
// wrote or edited, taken from its `read` / `write` / `edit` tool calls with a string `path`.
import type { FileLists } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';

export interface FileOperations {
  readonly read: ReadonlySet<string>;
  readonly written: ReadonlySet<string>;
  readonly edited: ReadonlySet<string>;
}

/** Mutable accumulator used while collecting; frozen into `FileOperations` by `toFileOperations`. */
export interface FileOperationsCollector {
  readonly read: Set<string>;
  readonly written: Set<string>;
  readonly edited: Set<string>;
}

export function createFileOperationsCollector(): FileOperationsCollector {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/** Adds the file lists of an earlier summary: its reads stay reads, its modifications count as edits. */
export function addFileLists(collector: FileOperationsCollector, lists: FileLists): void {
  for (const path of lists.readFiles) collector.read.add(path);
  for (const path of lists.modifiedFiles) collector.edited.add(path);
}

/** Adds the file operations of one message's tool calls (only assistant messages have any). */
export function addFileOperationsOfMessage(collector: FileOperationsCollector, message: AgentMessage): void {
  if (message.role !== 'assistant') return;
  for (const block of message.content) {
    if (block.type !== 'toolCall') continue;
    const path = block.arguments['path'];
    if (typeof path !== 'string') continue;
    if (block.name === 'read') collector.read.add(path);
    else if (block.name === 'write') collector.written.add(path);
    else if (block.name === 'edit') collector.edited.add(path);
  }
}

export function toFileOperations(collector: FileOperationsCollector): FileOperations {
  return {
    read: new Set(collector.read),
    written: new Set(collector.written),
    edited: new Set(collector.edited),
  };
}

/** The file operations of a list of messages. */
export function fileOperationsOfMessages(messages: readonly AgentMessage[]): FileOperations {
  const collector = createFileOperationsCollector();
  for (const message of messages) addFileOperationsOfMessage(collector, message);
  return toFileOperations(collector);
}

const byCodeUnits = (first: string, second: string): number => (first < second ? -1 : first > second ? 1 : 0);

/** Modified = edited ∪ written, sorted; read = read − modified, sorted. */
export function computeFileLists(operations: FileOperations): FileLists {
  const modified = new Set<string>([...operations.edited, ...operations.written]);
  const readFiles = [...operations.read].filter((path) => !modified.has(path)).sort(byCodeUnits);
  return { readFiles, modifiedFiles: [...modified].sort(byCodeUnits) };
}
