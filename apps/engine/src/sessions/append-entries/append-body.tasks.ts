// The task of a large append's body on the engine's worker threads (AppendBodyWork): the bytes
// are decoded, parsed and checked against the append's schema there, and each entry's JSON text
// (what the store keeps) and canonical JSON (what the hash chain covers) are written there as
// UTF-8 in shared memory, which the hasher and the store's writer threads read uncopied, so
// that an 8 MiB entry costs the event loop answering every tenant a copy, not three passes over
// its text. The entries' long texts are counted here too, with the engine's counter, so that the
// tokens of an 8 MiB text are not counted on the event loop either. The same functions as on the
// event loop decide what is refused, and why.
import { canonicalJson } from '@strata/integrity';
import { sharedUtf8, sharedUtf8Text, type KnownEncoding } from '@strata/event-store';
import { textsToCount } from '@strata/session';
import { countLongTexts, slicedCountingOf, type CountedText, type TokenCounterName } from '@strata/tokenizer';
import type { z } from 'zod';
import { ApiError, type InputProblem } from '../../api/problem/api-errors';
import { checkedBody, jsonBodyValue, utf8BodyText } from '../../api/request/request-input';
import { appendEntriesBody } from '../../api/sessions/session-requests.schemas';

export type AppendBody = z.output<typeof appendEntriesBody>;

/**
 * Entries whose JSON is shorter are given no texts: walking them on the event loop costs less
 * than a shared buffer each (a body may hold 10,000 small entries).
 */
export const SHARED_ENTRY_CHARS = 16 * 1024;

export interface ReadAppendBodyArgs {
  /** The body's bytes (in a SharedArrayBuffer as the HTTP body is read: not copied). */
  readonly bytes: Uint8Array;
  /** The engine's token counter: the entries' long texts are counted here with it. */
  readonly counter: TokenCounterName;
}

export type AppendBodyAnswer =
  | {
      readonly ok: true;
      readonly body: AppendBody;
      /** The texts of `body.entries`, in order: null for an entry under `SHARED_ENTRY_CHARS`. */
      readonly encodings: readonly (KnownEncoding | null)[];
      /** The counts of the entries' long texts (`longTexts(textsToCount(body.entries))`), in order. */
      readonly counted: readonly CountedText[];
    }
  | { readonly ok: false; readonly message: string; readonly errors: readonly InputProblem[] };

function refusal(error: unknown): AppendBodyAnswer {
  if (!(error instanceof ApiError)) throw error;
  const errors = (error.extensions as { errors?: readonly InputProblem[] }).errors ?? [];
  return { ok: false, message: error.message, errors };
}

/** Parses and checks an append's body, and writes each entry's texts. */
export function readAppendBody(args: ReadAppendBodyArgs): AppendBodyAnswer {
  let body: AppendBody;
  try {
    body = checkedBody(jsonBodyValue(utf8BodyText(args.bytes)), appendEntriesBody);
  } catch (error) {
    return refusal(error);
  }
  const encodings = body.entries.map((entry): KnownEncoding | null => {
    const json = JSON.stringify(entry);
    if (json.length < SHARED_ENTRY_CHARS) return null;
    return { json: sharedUtf8Text(json), canonicalUtf8: sharedUtf8(canonicalJson(entry)) };
  });
  const counting = slicedCountingOf(args.counter);
  const counted = counting === undefined ? [] : countLongTexts(counting, textsToCount(body.entries));
  return { ok: true, body, encodings, counted };
}
