// The reference side of the differential tests: a child process (plain ESM, since pi ships ESM
// only) that answers with the real @mariozechner/pi-coding-agent 0.73.1. It reads one JSON request
// per line on stdin and writes one JSON answer per line on stdout ({ id, result } or
// { id, error }). pi's modules are loaded by file from the package's dist folder: its exports map
// offers only the package root, and the root would load the whole agent (TUI included).
//
// Requests (op):
// - contexts { entries, leaves }: pi's buildSessionContext for each leaf (an id, null, or
//   { last: true } for "no leaf given"). A message that is an entry's own message object comes
//   back as that entry's index, so large sessions stay small on the wire.
// - prepare { entries, leaves, settings }: pi's prepareCompaction of the root→leaf path of each
//   leaf, or null where pi prepares nothing.
// - bashTexts { messages }: pi's bashExecutionToText of each shell-run message.
// - migrate { content }: a session file's lines as pi parses and migrates them (header first).
// - write { directory, cwd, steps }: a session written by pi's own SessionManager; steps name
//   earlier entries by step index. Answers { file, ids }.
import { createInterface } from 'node:readline';

const packageRoot = new URL('./', import.meta.resolve('@mariozechner/pi-coding-agent'));
const load = (file) => import(new URL(file, packageRoot).href);
const sessions = await load('core/session-manager.js');
const compaction = await load('core/compaction/compaction.js');
const messages = await load('core/messages.js');

function indexed(entries) {
  const byId = new Map();
  for (const entry of entries) byId.set(entry.id, entry);
  return byId;
}

function pathTo(byId, leafId) {
  const path = [];
  for (
    let current = byId.get(leafId);
    current;
    current = current.parentId ? byId.get(current.parentId) : undefined
  ) {
    path.unshift(current);
  }
  return path;
}

function contexts({ entries, leaves }) {
  const byId = indexed(entries);
  const messageIndex = new Map();
  entries.forEach((entry, index) => {
    if (entry.type === 'message') messageIndex.set(entry.message, index);
  });
  return leaves.map((leaf) => {
    const leafId = leaf !== null && typeof leaf === 'object' ? undefined : leaf;
    const context = sessions.buildSessionContext(entries, leafId, byId);
    return {
      messages: context.messages.map((message) => messageIndex.get(message) ?? message),
      thinkingLevel: context.thinkingLevel,
      model: context.model,
    };
  });
}

function prepare({ entries, leaves, settings }) {
  const byId = indexed(entries);
  return leaves.map((leafId) => {
    const preparation = compaction.prepareCompaction(pathTo(byId, leafId), settings);
    if (preparation === undefined) return null;
    return {
      firstKeptEntryId: preparation.firstKeptEntryId,
      isSplitTurn: preparation.isSplitTurn,
      tokensBefore: preparation.tokensBefore,
      previousSummary: preparation.previousSummary ?? null,
      messagesToSummarize: preparation.messagesToSummarize.length,
      turnPrefixMessages: preparation.turnPrefixMessages.length,
    };
  });
}

function bashTexts({ messages: runs }) {
  return runs.map((message) => messages.bashExecutionToText(message));
}

function migrate({ content }) {
  const entries = sessions.parseSessionEntries(content);
  sessions.migrateSessionEntries(entries);
  return entries;
}

function write({ directory, cwd, steps }) {
  const manager = sessions.SessionManager.create(cwd, directory);
  const ids = [];
  const idOf = (step) => (step === null ? null : ids[step]);
  for (const step of steps) {
    switch (step.kind) {
      case 'message':
        ids.push(manager.appendMessage(step.message));
        break;
      case 'modelChange':
        ids.push(manager.appendModelChange(step.provider, step.modelId));
        break;
      case 'thinkingLevel':
        ids.push(manager.appendThinkingLevelChange(step.thinkingLevel));
        break;
      case 'compaction':
        ids.push(
          manager.appendCompaction(
            step.summary,
            idOf(step.firstKept),
            step.tokensBefore,
            step.details,
            step.fromHook,
          ),
        );
        break;
      case 'branchSummary':
        ids.push(manager.branchWithSummary(idOf(step.from), step.summary, step.details, step.fromHook));
        break;
      case 'customMessage':
        ids.push(manager.appendCustomMessageEntry(step.customType, step.content, step.display, step.details));
        break;
      case 'custom':
        ids.push(manager.appendCustomEntry(step.customType, step.data));
        break;
      case 'label':
        ids.push(manager.appendLabelChange(idOf(step.target), step.label));
        break;
      case 'branch':
        manager.branch(idOf(step.from));
        ids.push(null);
        break;
      default:
        throw new Error(`unknown step ${JSON.stringify(step)}`);
    }
  }
  return { file: manager.getSessionFile(), ids };
}

const operations = { contexts, prepare, bashTexts, migrate, write };

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const { id, op, ...request } = JSON.parse(line);
  let answer;
  try {
    const operation = operations[op];
    if (operation === undefined) throw new Error(`unknown op ${op}`);
    answer = { id, result: operation(request) };
  } catch (error) {
    answer = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
