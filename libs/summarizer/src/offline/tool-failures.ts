// Decides, from a transcript's text alone, whether a tool call failed and which lines of its
// result say so. The transcript carries no `isError` flag, so the rules read what tools print:
// pi's own failure messages (`Command exited with code 2`, `Could not find the exact text in …`),
// and diagnostic words standing as words (`error`, `TypeError:`, `npm ERR!`, `1 failed`; never
// `errors.ts`, `redis-errors@1.2.0`, `showError(` or `0 errors`). The output of tools and shell
// lines that only list or print files is content: only a complaint of the shell counts there.
import { isListingCommand } from './shell-commands';

/** Tools whose output is file content or a listing. */
export const contentTools: ReadonlySet<string> = new Set([
  'read',
  'read_file',
  'view',
  'cat',
  'open',
  'grep',
  'rg',
  'find',
  'ls',
  'glob',
  'search',
]);

/** Lines pi's tools print when a call fails, whatever the tool. */
const toolFailureLine =
  /^(?:Command exited with code [1-9]\d*|Command aborted|Command timed out\b.*|Operation aborted|Could not find the exact text in .+|Found \d+ occurrences of the text in .+|No changes made to .+|File not found: .+)$/;
/** A shell or a listing program complaining (`ls: x: No such file or directory`). */
const shellComplaint =
  /No such file or directory|Permission denied|command not found|Not a directory|Is a directory|cannot access|cannot open/i;
const exitLine = /^Command exited with code/;
/** A source line quoted by a diagnostic tool behind its line-number gutter (`216 │ …`). */
const codeFrameLine = /^(?:>\s*)?\d+\s*[│|]/;

const diagnosticWords = new Set([
  'error',
  'errors',
  'err',
  'failed',
  'failure',
  'failures',
  'failing',
  'fatal',
  'exception',
  'panic',
  'traceback',
]);
const negations = new Set(['0', 'no', 'zero', 'without', 'not']);
const wordSeparators = /[\s()[\]{}<>"'`,;=|]+/;

/** Whether one word of a line (punctuation attached) names a failure. */
function isDiagnosticWord(token: string): boolean {
  const word = token.replace(/^\W+/, '').replace(/[:.!?]+$/, '');
  if (word.length === 0 || /[./@\\]/.test(word)) return false;
  return (
    diagnosticWords.has(word.toLowerCase()) ||
    word === 'FAIL' ||
    /^[A-Z][A-Za-z]*(?:Error|Exception)$/.test(word) ||
    (/^E[A-Z]{4,}$/.test(word) && token.endsWith(':'))
  );
}

/** Whether a line of a tool's output reports a failure (`0 errors` and quoted source lines do not). */
export function isDiagnosticLine(line: string): boolean {
  if (codeFrameLine.test(line)) return false;
  const words = line.split(wordSeparators).filter((word) => word.length > 0);
  return words.some(
    (word, index) => isDiagnosticWord(word) && !negations.has((words[index - 1] ?? '').toLowerCase()),
  );
}

/** Lines of one failed result kept as its errors. */
const FAILURE_LINES_KEPT = 3;

/**
 * The lines of a tool result that report the call's failure (a few diagnostics, then pi's
 * failure line), trimmed; empty when the call succeeded. `command` is its shell line, if any.
 */
export function failureLines(toolName: string, command: string | undefined, result: string): string[] {
  const lines = result
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const listing = contentTools.has(toolName) || (command !== undefined && isListingCommand(command));
  const failures = lines.filter((line) => toolFailureLine.test(line));
  const reasons = lines.filter(
    (line) => !toolFailureLine.test(line) && (listing ? shellComplaint.test(line) : isDiagnosticLine(line)),
  );
  // A listing that exits non-zero without complaining (`grep` finding nothing) did not fail.
  if (listing && reasons.length === 0 && failures.every((line) => exitLine.test(line))) return [];
  return [...reasons.slice(0, FAILURE_LINES_KEPT), ...failures.slice(0, 1)];
}
