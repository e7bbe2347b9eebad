// Ids of the entries the engine writes itself (compactions, branch summaries, labels). They have
// pi's shape (8 hex digits) and, when a seed is given, depend only on it, so a retried command
// proposes the same entry. A clash with an existing entry lengthens the id.
import { createHash, randomBytes } from 'node:crypto';

export function newEntryId(isTaken: (entryId: string) => boolean, seed?: string): string {
  const hex =
    seed === undefined ? randomBytes(16).toString('hex') : createHash('sha256').update(seed).digest('hex');
  for (let length = 8; length < hex.length; length += 4) {
    const candidate = hex.slice(0, length);
    if (!isTaken(candidate)) return candidate;
  }
  return hex;
}
