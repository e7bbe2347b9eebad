// The complete lines of a followed file given to its format's line reader: the format is the one
// asked for, or told from the first lines (`auto`), and the reader is made then. Each line's
// entries come with the line's number, so a part sent to the store says where each entry began.
import {
  createSessionLineReader,
  detectFollowedFormat,
  SessionFileError,
  splitOriginalLines,
  type SessionEntry,
  type SessionFileFormat,
  type SessionHeader,
  type SessionLineReader,
} from '@strata/session';

/** An entry and the line of the file it came from. */
export interface ConvertedEntry {
  readonly entry: SessionEntry;
  readonly line: number;
}

export class FollowedLines {
  private reader: SessionLineReader | undefined;

  constructor(private readonly format: SessionFileFormat | 'auto') {}

  /** The format read, once it is known. */
  get readFormat(): SessionFileFormat | undefined {
    return this.reader?.format;
  }

  /** The session header, once the lines have named it. */
  get header(): SessionHeader | undefined {
    return this.reader?.header;
  }

  get linesRead(): number {
    return this.reader?.linesRead ?? 0;
  }

  /**
   * The entries of the next complete lines (not empty); undefined when the format cannot be
   * told from them yet. Throws SessionFileError for a bad line, and, when `verifying` (the
   * lines were read before, so their format must be known), for a format it cannot tell.
   */
  convert(complete: Buffer, verifying: boolean): ConvertedEntry[] | undefined {
    if (this.reader === undefined) {
      const format =
        this.format !== 'auto' ? this.format : detectFollowedFormat(splitOriginalLines(complete));
      if (format === undefined) {
        if (verifying) {
          throw new SessionFileError({
            line: 1,
            code: 'missing-header',
            reason: 'its format cannot be told',
          });
        }
        return undefined;
      }
      this.reader = createSessionLineReader(format);
    }
    const reader = this.reader;
    const converted: ConvertedEntry[] = [];
    for (const text of splitOriginalLines(complete, reader.linesRead + 1)) {
      const line = reader.linesRead + 1;
      for (const entry of reader.convert([text])) converted.push({ entry, line });
    }
    return converted;
  }

  /** The entries the reader held back and can release now (see SessionLineReader.release). */
  release(): ConvertedEntry[] {
    const reader = this.reader;
    if (reader === undefined) return [];
    return reader.release().map((entry) => ({ entry, line: reader.linesRead }));
  }
}
