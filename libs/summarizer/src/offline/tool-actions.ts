// What a tool call did, in the short label the offline summary lists (`edit \`src/a.ts\``,
// `bash \`npm test\``), and which later actions settle an earlier failure: the same action run
// again (a shell line compared without its `cd` steps and output filters, an edit or write of
// the same file), or, for a build, check or test run, any later such run that succeeded.
import { clip, firstLine } from './summary-facts';
import { commandKey, isVerificationCommand } from './shell-commands';
import type { TranscriptToolCall } from './tool-calls';

export const modifyTools: ReadonlySet<string> = new Set([
  'write',
  'edit',
  'write_file',
  'edit_file',
  'create',
  'create_file',
  'multi_edit',
  'multiedit',
  'str_replace',
  'apply_patch',
  'patch',
]);
const shellTools = new Set(['bash', 'shell', 'sh', 'zsh', 'exec', 'run', 'run_command', 'terminal']);
const pathKeys = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file'];
const commandKeys = ['command', 'cmd', 'script'];
/** Arguments holding file content, never shown in a label. */
export const contentKeys: ReadonlySet<string> = new Set([
  'content',
  'text',
  'oldText',
  'newText',
  'old_string',
  'new_string',
  'patch',
  'diff',
  'edits',
]);

function stringArgument(call: TranscriptToolCall, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = call.arguments[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

export function isPathKey(key: string): boolean {
  return pathKeys.includes(key);
}

/** The file a call works on, from its path argument. */
export function callPath(call: TranscriptToolCall): string | undefined {
  return stringArgument(call, pathKeys);
}

/** The shell line a call runs, if it has one. */
export function shellCommandOf(call: TranscriptToolCall): string | undefined {
  return stringArgument(call, commandKeys);
}

/** A short, stable label for what a call did: `edit \`src/a.ts\``, `bash \`npm test\``. */
export function actionLabel(call: TranscriptToolCall): string {
  const path = callPath(call);
  if (path !== undefined) return `${call.name} \`${path}\``;
  const target =
    shellCommandOf(call) ??
    Object.entries(call.arguments).find(
      ([key, value]) => !contentKeys.has(key) && typeof value === 'string' && value.length > 0,
    )?.[1];
  return typeof target === 'string' ? `${call.name} \`${clip(firstLine(target, 120), 120)}\`` : call.name;
}

/** The label of a Blocked item (`<label> — <error line>`). */
export function labelOfBlockedItem(item: string): string {
  const closing = item.indexOf('` — ');
  if (closing !== -1) return item.slice(0, closing + 1);
  const dash = item.indexOf(' — ');
  return dash === -1 ? item : item.slice(0, dash);
}

export interface ActionIdentity {
  /** Equal for two runs of the same action. */
  readonly key: string;
  /** A build, check or test run: any later successful one settles its failure. */
  readonly verification: boolean;
}

/** Who an action is, read back from its label (so that labels from a previous summary compare too). */
export function actionIdentity(label: string): ActionIdentity {
  const match = /^(\S+) `([\s\S]*)`$/.exec(label);
  const name = match?.[1] ?? label;
  const target = (match?.[2] ?? '').replace(/…$/, '');
  if (modifyTools.has(name)) return { key: `modify ${target}`, verification: false };
  if (shellTools.has(name))
    return { key: `shell ${commandKey(target)}`, verification: isVerificationCommand(target) };
  return { key: label, verification: false };
}

/** Whether a later action with identity `later` (succeeded or failed anew) settles `earlier`'s failure. */
export function settles(later: ActionIdentity, laterSucceeded: boolean, earlier: ActionIdentity): boolean {
  return later.key === earlier.key || (laterSucceeded && later.verification && earlier.verification);
}
