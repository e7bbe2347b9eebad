// Per-session settings overrides. A session carries them as a `custom` entry of type
// `strata.settings` whose data is a partial of the compaction, branch-summary and pruning
// settings; the newest such entry (in append order, whatever the branch) is in force and is
// merged over the engine's settings. An entry is validated when it is appended; one that was
// imported invalid is ignored and reported.
import type { ActiveSessionState, SessionEntry } from '@strata/session';
import {
  sessionSettingsOverrideSchema,
  type EngineSettings,
  type SessionSettingsOverride,
} from './engine-settings.schema';
import { SettingsValidationError } from './settings-validation-error';

export const SESSION_SETTINGS_CUSTOM_TYPE = 'strata.settings';

export function isSessionSettingsEntry(entry: SessionEntry): boolean {
  return entry.type === 'custom' && entry.customType === SESSION_SETTINGS_CUSTOM_TYPE;
}

/** Validates the data of a settings entry; throws `SettingsValidationError` naming the entry. */
export function parseSessionSettingsOverride(data: unknown, entryId: string): SessionSettingsOverride {
  const result = sessionSettingsOverrideSchema.safeParse(data ?? {});
  if (!result.success) {
    throw SettingsValidationError.fromZod(`session settings entry ${entryId}`, result.error);
  }
  return result.data;
}

export interface ResolvedSessionSettings {
  readonly settings: EngineSettings;
  /** The settings entry in force, if any. */
  readonly overrideEntryId?: string;
  /** An invalid settings entry that was ignored. */
  readonly ignored?: SettingsValidationError;
}

/**
 * `resolveSessionSettings` of a folded session, which keeps its newest override at hand: no walk
 * of its entries (the saga view is built after every append with a message).
 */
export function resolveStateSettings(
  engine: EngineSettings,
  state: ActiveSessionState,
): ResolvedSessionSettings {
  const newest = state.newestCustomEntry(SESSION_SETTINGS_CUSTOM_TYPE);
  return resolveSessionSettings(engine, newest === undefined ? [] : [newest]);
}

/** The engine settings with the session's newest valid override merged in. */
export function resolveSessionSettings(
  engine: EngineSettings,
  entries: readonly SessionEntry[],
): ResolvedSessionSettings {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry?.type !== 'custom' || entry.customType !== SESSION_SETTINGS_CUSTOM_TYPE) continue;
    try {
      const override = parseSessionSettingsOverride(entry.data, entry.id);
      return { settings: mergeOverride(engine, override), overrideEntryId: entry.id };
    } catch (error) {
      if (error instanceof SettingsValidationError) return { settings: engine, ignored: error };
      throw error;
    }
  }
  return { settings: engine };
}

function mergeOverride(engine: EngineSettings, override: SessionSettingsOverride): EngineSettings {
  return {
    ...engine,
    compaction: { ...engine.compaction, ...override.compaction },
    branchSummary: { ...engine.branchSummary, ...override.branchSummary },
    pruning: { ...engine.pruning, ...override.pruning },
  };
}
