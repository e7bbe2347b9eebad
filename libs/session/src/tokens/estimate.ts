// Token estimate of one agent message (reference §3.1, with defect 4 of §11.1 fixed: the
// `custom`, `pythonExecution` and `fileMention` roles are counted, not taken as zero).
import type { AgentMessage } from '../entries/messages';
import type { TokenCounter } from './token-counter';

type Block = { readonly type: string; readonly text?: unknown };

function blockPieces(content: string | readonly Block[], pieces: string[]): number {
  if (typeof content === 'string') {
    pieces.push(content);
    return 0;
  }
  let images = 0;
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') pieces.push(block.text);
    else if (block.type === 'image') images += 1;
  }
  return images;
}

/**
 * The text pieces and image count the counters charge for a message. `countEveryRole` (default
 * true) is defect 4 fixed; `false` charges as pi 0.73.1's `estimateTokens` does: no images in
 * user messages, an `excludeFromContext` shell run at full size, `pythonExecution` and
 * `fileMention` (roles pi does not know) at 0. For comparisons with pi only.
 */
export function messageTokenPieces(
  message: AgentMessage,
  countEveryRole = true,
): { pieces: string[]; images: number } {
  const pieces: string[] = [];
  let images = 0;
  switch (message.role) {
    case 'user':
      images = blockPieces(message.content, pieces);
      if (!countEveryRole) images = 0;
      break;
    case 'custom':
    case 'toolResult':
      images = blockPieces(message.content, pieces);
      break;
    case 'assistant':
      for (const block of message.content) {
        if (block.type === 'text') pieces.push(block.text);
        else if (block.type === 'thinking') pieces.push(block.thinking);
        else pieces.push(block.name, JSON.stringify(block.arguments) ?? '');
      }
      break;
    case 'bashExecution':
      if (message.excludeFromContext !== true || !countEveryRole)
        pieces.push(message.command, message.output);
      break;
    case 'pythonExecution':
      if (message.excludeFromContext !== true && countEveryRole) pieces.push(message.code, message.output);
      break;
    case 'fileMention':
      if (!countEveryRole) break;
      for (const file of message.files) {
        pieces.push(file.path, file.content);
        if (file.image) images += 1;
      }
      break;
    case 'branchSummary':
    case 'compactionSummary':
      pieces.push(message.summary);
      break;
    default: {
      const unreachable: never = message;
      throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
    }
  }
  return { pieces, images };
}

/** Estimated tokens of one message with the given counter (see `messageTokenPieces`). */
export function estimateMessageTokens(
  message: AgentMessage,
  counter: TokenCounter,
  countEveryRole = true,
): number {
  const { pieces, images } = messageTokenPieces(message, countEveryRole);
  return counter.countPieces(pieces, images);
}
