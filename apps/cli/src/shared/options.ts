// Option parsing shared by the commands: node's parseArgs with errors turned into usage errors.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { sessionFileFormats, type SessionFileFormat } from '@strata/session';
import { isTokenCounterName, type TokenCounterName } from '@strata/tokenizer';
import { CliError } from '../cli-io';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandLine<T extends Options>(
  argv: readonly string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals, strict: true });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
}

export function tokenizerOption(value: string | undefined): TokenCounterName {
  if (value === undefined) return 'o200k';
  if (!isTokenCounterName(value))
    throw new CliError(`--tokenizer must be o200k or chars4, not '${value}'`, 2);
  return value;
}

export function positiveIntegerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw new CliError(`--${name} must be a positive integer, not '${value}'`, 2);
  return number;
}

/** `--format` of a session file: pi, claude-code, codex or auto. */
export function sessionFileFormatOption(value: string | undefined): SessionFileFormat | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  const format = sessionFileFormats.find((known) => known === value);
  if (format === undefined)
    throw new CliError(`--format must be pi, claude-code, codex or auto, not '${value}'`, 2);
  return format;
}
