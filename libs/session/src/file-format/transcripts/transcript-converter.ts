// What the Claude Code and Codex converters share: reading lines incrementally (lines N.. after
// the state of lines 0..N-1), holding entries back until the session header is known, giving
// every entry a unique id, keeping each original line on exactly one entry, and checking each
// entry against the entry schemas so that a line that maps to an invalid entry is refused,
// naming it. Every line of a batch is read (JSON, shape) before any is mapped, so a line that is
// not JSON or not of the format's shape throws a SessionFileError and changes nothing; a line
// whose entry breaks the entry rules throws while mapping, and the converter is then spent.
import {
  CURRENT_SESSION_VERSION,
  sessionEntrySchema,
  sessionHeaderSchema,
  type SessionEntry,
  type SessionHeader,
} from '../../entries/entries';
import { isIsoDateTime } from '../../entries/timestamps';
import { SessionFileError } from '../session-file-error';
import {
  ORIGINAL_FORMAT_FIELD,
  ORIGINAL_LINES_FIELD,
  readTranscriptLine,
  type OriginalLine,
  type TranscriptFormat,
  type TranscriptRecord,
} from './transcript-lines';

export interface TranscriptConverterOptions {
  /** The session id when the lines name none (for instance from the file name). */
  readonly sessionIdFallback?: string;
}

/**
 * Converts a transcript into session entries, line by line. Feed it the complete lines of the
 * file in order (each with its terminator); it returns the entries they make, in an order where
 * every parent comes before its children. Entries are returned only once the header is known.
 * An answer written over several lines is held until a line shows it ended; `finish()` says the
 * file ended (for a file being followed, call it only when no more lines will come).
 */
export interface TranscriptConverter {
  readonly format: TranscriptFormat;
  /** Lines read so far: the next line given is line `linesRead + 1` of the file. */
  readonly linesRead: number;
  /** The session header, once the lines have named the session. */
  readonly header: SessionHeader | undefined;
  /** The entries of the next complete lines. Throws SessionFileError for a bad line. */
  convert(lines: readonly string[]): SessionEntry[];
  /**
   * The entries held back that no later line can change any more (an answer whose own lines
   * say it ended), as the next line would have released them; the converter goes on. A quiet
   * file being followed calls it: what it returns is what converting the whole file gives.
   */
  release(): SessionEntry[];
  /** The entries still held (an answer that could have gone on); then the converter is done. */
  finish(): SessionEntry[];
}

/** A header the converter found, before it is checked. */
export interface HeaderCandidate {
  readonly id: string;
  readonly timestamp: string;
  readonly cwd: string;
}

/** An entry as a converter builds it; `emit` checks it against the entry schemas. */
export type DraftEntry = EntryCore & Readonly<Record<string, unknown>>;
/** A draft before it is placed in the tree (no parent yet), or before it has an id. */
export type UnplacedEntry = Omit<EntryCore, 'parentId'> & Readonly<Record<string, unknown>>;
export type UnnamedEntry = Omit<EntryCore, 'parentId' | 'id'> & Readonly<Record<string, unknown>>;

interface EntryCore {
  readonly type: SessionEntry['type'];
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
}

/** Lines of one answer held at most; a longer answer is split into several messages. */
export const MAX_ANSWER_LINES = 1000;

/** Lines read at most before the session must be named (they are held until it is). */
export const MAX_LINES_BEFORE_HEADER = 1000;

/** The time of an entry when nothing in the file gives one. */
const UNKNOWN_TIME = '1970-01-01T00:00:00.000Z';

/** Entry ids the file itself does not give: derived from the line they come from. */
export function lineEntryId(line: number): string {
  return `line-${line}`;
}

export abstract class TranscriptConverterBase implements TranscriptConverter {
  abstract readonly format: TranscriptFormat;
  private lineCount = 0;
  private sessionHeader: SessionHeader | undefined;
  private finished = false;
  private spent: SessionFileError | undefined;
  private readonly waiting: TranscriptRecord[] = [];
  private output: SessionEntry[] = [];
  private readonly usedIds = new Set<string>();
  /** The latest timestamp read, for lines that carry none. */
  protected lastTimestamp: string | undefined;

  constructor(protected readonly options: TranscriptConverterOptions = {}) {}

  get linesRead(): number {
    return this.lineCount;
  }

  get header(): SessionHeader | undefined {
    return this.sessionHeader;
  }

  convert(lines: readonly string[]): SessionEntry[] {
    this.requireUsable();
    const records = lines.map((text, index) => readTranscriptLine(text, this.lineCount + index + 1));
    for (const record of records) this.checkRecord(record);
    this.lineCount += records.length;
    this.output = [];
    this.guarded(() => {
      for (const record of records) {
        if (this.sessionHeader !== undefined) {
          this.noteTimestamp(record);
          this.mapRecord(record);
          continue;
        }
        this.waiting.push(record);
        const candidate = this.headerFrom(record);
        if (candidate !== undefined) this.startWith(candidate, record.line);
        else if (this.waiting.length >= MAX_LINES_BEFORE_HEADER) this.startWithoutHeader(record.line);
      }
    });
    return this.output;
  }

  private requireUsable(): void {
    if (this.spent !== undefined) throw this.spent;
    if (this.finished) throw new Error('the transcript was finished; no more lines can be converted');
  }

  private guarded(body: () => void): void {
    try {
      body();
    } catch (error) {
      if (error instanceof SessionFileError) this.spent = error;
      throw error;
    }
  }

  release(): SessionEntry[] {
    this.requireUsable();
    this.output = [];
    if (this.sessionHeader !== undefined) this.guarded(() => this.releaseEnded());
    return this.output;
  }

  finish(): SessionEntry[] {
    if (this.spent === undefined && this.finished) return [];
    this.requireUsable();
    this.output = [];
    this.guarded(() => {
      if (this.sessionHeader === undefined) {
        if (this.waiting.length === 0 && this.options.sessionIdFallback === undefined) {
          throw new SessionFileError({ line: 1, code: 'missing-header', reason: 'the file holds no lines' });
        }
        this.startWithoutHeader(this.waiting[0]?.line ?? 1);
      }
      this.flush();
    });
    this.finished = true;
    return this.output;
  }

  /** No line named the session: the fallback id names it, or the file is refused. */
  private startWithoutHeader(line: number): void {
    const fallback = this.options.sessionIdFallback;
    if (fallback === undefined) {
      throw new SessionFileError({
        line,
        code: 'missing-header',
        reason: `no line names the ${this.format} session (its id) in the first ${MAX_LINES_BEFORE_HEADER} lines; name the session id`,
      });
    }
    this.startWith({ id: fallback, timestamp: this.firstTimestamp() ?? UNKNOWN_TIME, cwd: '' }, line);
  }

  /** Checks a line's shape (throwing SessionFileError) before any line of its batch is mapped. */
  protected abstract checkRecord(record: TranscriptRecord): void;
  /** The session the line names, if it does. */
  protected abstract headerFrom(record: TranscriptRecord): HeaderCandidate | undefined;
  /** Maps one line (the header is known). */
  protected abstract mapRecord(record: TranscriptRecord): void;
  /** Emits whatever is held (the file ended). */
  protected abstract flush(): void;
  /** Emits what is held only when its own lines show that no later line can extend it. */
  protected abstract releaseEnded(): void;

  /** An id for an entry: `preferred` when unused, else one made unique with the line number. */
  protected uniqueId(preferred: string, line: number): string {
    let id = preferred;
    for (let attempt = 1; this.usedIds.has(id); attempt += 1) {
      id = attempt === 1 ? `${preferred}@${line}` : `${preferred}@${line}.${attempt}`;
    }
    this.usedIds.add(id);
    return id;
  }

  /**
   * Whether these lines carry their own timestamps: one without takes the latest read when it
   * is mapped, which for a held line is the line that ends the hold, so it cannot be released.
   */
  protected timed(records: readonly (TranscriptRecord | undefined)[]): boolean {
    return records.every((record) => typeof record?.value?.timestamp === 'string');
  }

  /** The timestamp of a line, or the latest one read before it. */
  protected timestampOf(record: TranscriptRecord, fallback?: string): string {
    const own = record.value?.timestamp;
    if (typeof own === 'string') return own;
    return fallback ?? this.lastTimestamp ?? this.sessionHeader?.timestamp ?? UNKNOWN_TIME;
  }

  /**
   * Emits an entry carrying `lines` (the original lines it stands for), after checking it
   * against the entry schemas; a problem is reported at the last of its lines.
   */
  protected emit(entry: DraftEntry, lines: readonly OriginalLine[]): SessionEntry {
    const carried = lines.length > 0 ? { ...entry, [ORIGINAL_LINES_FIELD]: lines } : entry;
    const checked = sessionEntrySchema.safeParse(carried);
    if (!checked.success) {
      const [issue] = checked.error.issues;
      const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      throw new SessionFileError({
        line: lines[lines.length - 1]?.line ?? this.lineCount,
        code: 'schema-violation',
        reason: `the ${this.format} line maps to an invalid ${entry.type} entry: ${at}: ${issue?.message ?? 'invalid'}`,
      });
    }
    // The schemas have no transforms: the checked value is the entry itself, keys in order.
    const accepted = carried as SessionEntry;
    this.output.push(accepted);
    return accepted;
  }

  private noteTimestamp(record: TranscriptRecord): void {
    const timestamp = record.value?.timestamp;
    if (typeof timestamp === 'string' && isIsoDateTime(timestamp)) this.lastTimestamp = timestamp;
  }

  private firstTimestamp(): string | undefined {
    for (const record of this.waiting) {
      const timestamp = record.value?.timestamp;
      if (typeof timestamp === 'string' && isIsoDateTime(timestamp)) return timestamp;
    }
    return undefined;
  }

  private startWith(candidate: HeaderCandidate, line: number): void {
    const header = {
      type: 'session' as const,
      version: CURRENT_SESSION_VERSION,
      id: candidate.id,
      timestamp: isIsoDateTime(candidate.timestamp)
        ? candidate.timestamp
        : (this.firstTimestamp() ?? candidate.timestamp),
      cwd: candidate.cwd,
      [ORIGINAL_FORMAT_FIELD]: this.format,
    };
    const checked = sessionHeaderSchema.safeParse(header);
    if (!checked.success) {
      const [issue] = checked.error.issues;
      throw new SessionFileError({
        line,
        code: 'schema-violation',
        reason: `the ${this.format} session cannot be named: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      });
    }
    this.sessionHeader = header;
    const waiting = this.waiting.splice(0);
    for (const record of waiting) {
      this.noteTimestamp(record);
      this.mapRecord(record);
    }
  }
}
