// Seeds of derived event ids (derived-event-id.ts), built from their parts so that two different
// lists of parts never give the same seed. The seed is a NUL followed by the parts as a JSON
// array: JSON.parse gives the parts back, so the encoding is injective, and JSON escapes every
// control character, so nothing inside the array can end a part early. Every seed the engine
// writes names the session, then what the id is for, then the caller's own parts (a key, an
// attempt id, an entry id), so one session's ids can neither equal nor be claimed by another's.
// Seeds made before this encoding were free text joined with "/" and never began with a NUL.

/** One part of a seed; `null` stands for "none" (a leaf before the first entry). */
export type IdSeedPart = string | null;

/** What a session-scoped derived id is for. Each purpose names one kind of write. */
export type SessionIdPurpose =
  | 'start-session'
  | 'append'
  | 'label'
  | 'compaction-start'
  | 'compaction-outcome'
  | 'branch-summary-start'
  | 'branch-summary-outcome'
  | 'interrupted'
  | 'import-header'
  | 'import-entry'
  | 'import-leaf';

const SEED_MARK = '\u0000';

/** The seed of `parts`: distinct lists of parts always give distinct seeds. */
export function idSeedOf(parts: readonly IdSeedPart[]): string {
  return `${SEED_MARK}${JSON.stringify(parts)}`;
}

/** The seed of an id written to the session `sessionId` for `purpose`, with the caller's parts. */
export function sessionIdSeed(
  sessionId: string,
  purpose: SessionIdPurpose,
  ...parts: readonly IdSeedPart[]
): string {
  return idSeedOf(['session', sessionId, purpose, ...parts]);
}
