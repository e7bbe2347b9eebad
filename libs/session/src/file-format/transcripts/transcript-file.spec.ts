import { readTranscriptSample, transcriptSampleNames } from '@strata/testing';
import { serializeSessionFile } from '../serialize-session-file';
import {
  detectSessionFileFormat,
  originalFileOf,
  OriginalFileUnavailableError,
  parseTranscriptFile,
} from './transcript-file';
import { splitOriginalLines } from './transcript-lines';

const claudeLine = (uuid: string, parentUuid: string | null) =>
  JSON.stringify({
    type: 'user',
    sessionId: 's',
    uuid,
    parentUuid,
    timestamp: '2025-11-01T10:00:00.000Z',
    message: { role: 'user', content: uuid },
  });

describe('transcript files', () => {
  describe('detecting the format from the lines', () => {
    it.each([
      ['claude-code-tools.jsonl', 'claude-code'],
      ['claude-code-compaction.jsonl', 'claude-code'],
      ['codex-rollout.jsonl', 'codex'],
      ['codex-legacy-rollout.jsonl', 'codex'],
    ] as const)('tells %s is %s', (name, format) => {
      expect(detectSessionFileFormat(readTranscriptSample(name))).toBe(format);
      expect(detectSessionFileFormat(readTranscriptSample(name).toString('utf8'))).toBe(format);
    });

    it('tells a pi file by its header, and reads anything it does not recognise as pi', () => {
      const pi = serializeSessionFile(
        { type: 'session', version: 3, id: 'p', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/' },
        [],
      );
      expect(detectSessionFileFormat(pi)).toBe('pi');
      expect(detectSessionFileFormat('not json\n{"type":"entry"}\n')).toBe('pi');
      expect(detectSessionFileFormat('')).toBe('pi');
    });
  });

  describe('writing the original file back', () => {
    it.each(transcriptSampleNames)('gives back %s byte for byte', (name) => {
      const bytes = readTranscriptSample(name);
      const parsed = parseTranscriptFile(bytes, name.startsWith('codex') ? 'codex' : 'claude-code');
      expect(Buffer.from(originalFileOf(parsed.header, parsed.entries).text, 'utf8').equals(bytes)).toBe(
        true,
      );
    });

    it('keeps CRLF line endings, blank lines, key order and a last line without a newline', () => {
      const text = `${claudeLine('u1', null)}\r\n\r\n  \n${claudeLine('u2', 'u1').replace('"type":"user",', '"type":"user" ,')}`;
      const parsed = parseTranscriptFile(text, 'claude-code');
      expect(originalFileOf(parsed.header, parsed.entries).text).toBe(text);
      expect(splitOriginalLines(text)).toHaveLength(4);
    });

    it('reads bytes that are not UTF-8 as an error naming the line', () => {
      const bytes = Buffer.concat([Buffer.from(`${claudeLine('u1', null)}\n`), Buffer.from([0xff, 0x0a])]);
      expect(() => parseTranscriptFile(bytes, 'claude-code')).toThrow(/line 2: the line is not UTF-8 text/);
    });

    it('refuses a session whose lines are not all there, and a session that was not converted', () => {
      const parsed = parseTranscriptFile(
        `${claudeLine('u1', null)}\n${claudeLine('u2', 'u1')}\n`,
        'claude-code',
      );
      expect(() => originalFileOf(parsed.header, parsed.entries.slice(1))).toThrow(
        OriginalFileUnavailableError,
      );
      expect(() => originalFileOf(parsed.header, parsed.entries.slice(1))).toThrow(/line 1/);
      const { originalFormat: _format, ...piHeader } = parsed.header;
      expect(() => originalFileOf(piHeader, parsed.entries)).toThrow(
        /not converted from a Claude Code or Codex file/,
      );
    });
  });
});
