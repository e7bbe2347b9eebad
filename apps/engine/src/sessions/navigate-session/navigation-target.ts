// Where navigation lands (reference §6.4 step 5): a user message or a custom message target
// puts the leaf on its parent (null for a root) and hands its text back for re-editing; any
// other target becomes the leaf itself.
import type { SessionEntry } from '@strata/session';

export interface NavigationTarget {
  readonly newLeafId: string | null;
  readonly editorText?: string;
}

type TextContent = string | readonly ({ readonly type: string; readonly text?: string } | object)[];

function textOf(content: TextContent): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => ('type' in block && block.type === 'text' && 'text' in block ? String(block.text) : ''))
    .join('');
}

export function navigationTarget(target: SessionEntry): NavigationTarget {
  if (target.type === 'message' && target.message.role === 'user') {
    return { newLeafId: target.parentId, editorText: textOf(target.message.content) };
  }
  if (target.type === 'custom_message') {
    return { newLeafId: target.parentId, editorText: textOf(target.content) };
  }
  return { newLeafId: target.id };
}
