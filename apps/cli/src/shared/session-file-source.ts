// Reads a pi session file for the file-based commands, turning I/O and format problems into
// messages that name the file and the line.
import { readFileSync } from 'node:fs';
import { parseSessionFile, SessionFileError, type ParsedSessionFile } from '@strata/session';
import { CliError } from '../cli-io';

export function readSessionFile(path: string, lenient = false): ParsedSessionFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    throw new CliError(`cannot read ${path}: ${reason}`);
  }
  try {
    return parseSessionFile(bytes, { mode: lenient ? 'lenient' : 'strict' });
  } catch (error) {
    if (error instanceof SessionFileError)
      throw new CliError(`${path}:${error.line}: ${error.reason} (${error.code})`);
    throw error;
  }
}
