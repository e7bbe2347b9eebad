// Writing a session as v3 JSONL: the header line, then one line per entry, each ending in
// "\n"; the header always says version 3. Keys keep their order; keys whose value is undefined are left out.
import type { SessionEntry, SessionHeader } from '../entries/entries';
import { migrateHeader } from './migrate-entries';

export function serializeSessionFile(header: SessionHeader, entries: readonly SessionEntry[]): string {
  const lines = [JSON.stringify(migrateHeader(header)), ...entries.map((entry) => JSON.stringify(entry))];
  return lines.map((line) => `${line}\n`).join('');
}
