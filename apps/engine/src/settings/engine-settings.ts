// Reading the engine's settings: validated with zod once, at start-up. `STRATA_SETTINGS` names
// a JSON file; without it every setting has its default.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineSettingsSchema, type EngineSettings } from './engine-settings.schema';
import { SettingsValidationError } from './settings-validation-error';

export const SETTINGS_FILE_ENVIRONMENT_VARIABLE = 'STRATA_SETTINGS';

/** Validates raw settings (a parsed file, or an object given in code); throws `SettingsValidationError`. */
export function parseEngineSettings(input: unknown, source = 'settings'): EngineSettings {
  const result = engineSettingsSchema.safeParse(input ?? {});
  if (!result.success) throw SettingsValidationError.fromZod(source, result.error);
  return result.data;
}

/** The settings in a JSON file. */
export function readEngineSettingsFile(filePath: string): EngineSettings {
  let text: string;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    throw new SettingsValidationError(filePath, [`cannot be read: ${(error as Error).message}`]);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new SettingsValidationError(filePath, [`is not JSON: ${(error as Error).message}`]);
  }
  return parseEngineSettings(input, filePath);
}

/** The absolute path of the settings file `STRATA_SETTINGS` names (relative to `cwd`), if any. */
export function settingsFilePath(
  environment: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string | undefined {
  const file = environment[SETTINGS_FILE_ENVIRONMENT_VARIABLE]?.trim();
  return file ? path.resolve(cwd, file) : undefined;
}

/** The settings file named by `STRATA_SETTINGS` (relative to `cwd`), else the defaults. */
export function loadEngineSettings(
  environment: Readonly<Record<string, string | undefined>>,
  cwd: string,
): EngineSettings {
  const file = settingsFilePath(environment, cwd);
  return file === undefined ? parseEngineSettings({}) : readEngineSettingsFile(file);
}

/**
 * The context window of `model` ("provider/modelId"): an override for the full name, else for
 * the bare model id, else the default.
 */
export function contextWindowOf(settings: Pick<EngineSettings, 'models'>, model: string | undefined): number {
  const { contextWindows, defaultContextWindow } = settings.models;
  if (model === undefined) return defaultContextWindow;
  const bareId = model.slice(model.indexOf('/') + 1);
  return contextWindows[model] ?? contextWindows[bareId] ?? defaultContextWindow;
}
