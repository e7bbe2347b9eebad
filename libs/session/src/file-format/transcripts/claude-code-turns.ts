// Where a Claude Code entry hangs in the session tree. Lines point at their parent by uuid; the
// entries already made are grouped in turns (a prompt, or an answer with the results and notices
// that follow it), and an entry whose parent line is in a turn hangs from the turn's last entry,
// so the results of parallel calls form a chain. A line naming no parent goes on the main path
// (or after the last entry, in a sidechain); one naming an unknown parent starts a tree.
import type { JsonObject } from '../json-lines';
import { isSidechain } from './claude-code-lines';
import { stringField } from './transcript-lines';

export class ClaudeCodeTurns {
  /** The entry each line's uuid stands for. */
  private readonly entryOfUuid = new Map<string, string>();
  /** The turn of an entry, and the last entry of each turn. */
  private readonly turnOfEntry = new Map<string, number>();
  private readonly turnTails: string[] = [];
  /** The last entry of the main conversation (not a sidechain): where lines without a parent go. */
  private mainPathLeaf: string | null = null;
  private lastEntry: string | null = null;

  get mainLeaf(): string | null {
    return this.mainPathLeaf;
  }

  /** Notes that the line with this uuid (if it has one) became the entry `entryId`. */
  remember(uuid: string | undefined, entryId: string): void {
    if (uuid !== undefined) this.entryOfUuid.set(uuid, entryId);
  }

  /** Where an entry of this line attaches: its parent's turn's last entry, or the main path's. */
  parentOf(value: JsonObject | undefined, parentKey = 'parentUuid'): string | null {
    if (value === undefined || !Object.hasOwn(value, parentKey)) {
      return isSidechain(value ?? {}) ? this.lastEntry : this.mainPathLeaf;
    }
    const parentUuid = stringField(value, parentKey);
    if (parentUuid === undefined) return null;
    const entryId = this.entryOfUuid.get(parentUuid);
    if (entryId === undefined) return null;
    const turn = this.turnOfEntry.get(entryId);
    return turn === undefined ? entryId : (this.turnTails[turn] ?? entryId);
  }

  /** Records an emitted entry: its place in the turns and the leaves. */
  placed(entryId: string, parentId: string | null, startsTurn: boolean, sidechain: boolean): void {
    if (startsTurn) {
      this.turnOfEntry.set(entryId, this.turnTails.length);
      this.turnTails.push(entryId);
    } else if (parentId !== null) {
      const turn = this.turnOfEntry.get(parentId);
      if (turn !== undefined) {
        this.turnOfEntry.set(entryId, turn);
        this.turnTails[turn] = entryId;
      }
    }
    this.lastEntry = entryId;
    if (!sidechain || this.mainPathLeaf === null) this.mainPathLeaf = entryId;
  }
}
