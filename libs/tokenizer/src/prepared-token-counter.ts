// A TokenCounter for a shared engine (DESIGN.md decision 11): the synchronous port the pure domain
// calls, with the long counts made ready beforehand without holding the event loop. A text shorter
// than LONG_TEXT_CHARACTERS is counted on the spot (a millisecond at most). A long text's count is
// kept (TokenCountCache) once counted; the engine counts long texts in slices before it calls the
// domain, in one of two ways:
// - `countAhead(texts)`, for texts it can name (the entries of an append, the entries a read counts);
// - `whenCounted(compute)`, for a pure computation whose texts it cannot name (the transcripts the
//   domain builds and fits to a budget): `compute` runs against a probe that answers from the counts
//   at hand and notes each text it lacks (answering chars/4 meanwhile); the texts noted are counted
//   in slices and `compute` runs again, until a run lacks nothing. That run's result is returned,
//   the same as `compute(counter)` would give. `compute` must be pure: it may run several times.
// A long text nobody counted ahead is still counted by the synchronous path, in time linear in its
// length but holding the loop meanwhile; `stats().countedOnTheSpot` tells how often that happened.
import type { TokenCounter } from '@strata/session';
import { TimedCountingSlices, type CountingSlices } from './counting-slices';
import { TokenCountCache, rememberTextKey, textKey } from './token-count-cache';

/** Texts of at least this many characters are long: counted ahead, their counts kept. */
export const LONG_TEXT_CHARACTERS = 4096;
/** Runs of one `whenCounted` computation before the rest is counted on the spot. */
export const MAX_PREPARATION_ROUNDS = 64;

/** How one encoding counts a text, at once or in slices. */
export interface SlicedTextCounting {
  readonly name: string;
  /** Tokens charged per image. */
  readonly imageTokens: number;
  countNow(text: string): number;
  countInSlices(text: string, slices: CountingSlices): Promise<number>;
}

export interface PreparedCountStats {
  /** Long texts whose counts are kept. */
  readonly keptCounts: number;
  /** Long texts counted in slices, ahead of the domain. */
  readonly countedAhead: number;
  /** Long texts the synchronous path counted because nothing had counted them ahead. */
  readonly countedOnTheSpot: number;
  readonly preparations: number;
  /** Runs of the preparations' computations. */
  readonly preparationRounds: number;
}

export interface PreparedTokenCounter extends TokenCounter {
  /** Whether `countPieces` of these texts would count nothing long now. */
  isReady(texts: readonly string[]): boolean;
  /** Counts the long texts among `texts` that are not counted yet, yielding between slices. */
  countAhead(texts: readonly string[], slices?: CountingSlices): Promise<void>;
  /**
   * Takes counts of long texts made elsewhere with the same counting (`countLongTexts` on a
   * worker thread), as if counted ahead here.
   */
  rememberCounted(texts: readonly string[], counted: readonly CountedText[]): void;
  /** `compute(counter)`, run once every count it asks for is ready (see the module header). */
  whenCounted<T>(compute: (counter: TokenCounter) => T, slices?: CountingSlices): Promise<T>;
  stats(): PreparedCountStats;
}

/** The count of a long text made away from the engine's event loop, with its key (`textKey`). */
export interface CountedText {
  readonly key: string;
  readonly tokens: number;
}

/**
 * The long texts among `texts` (LONG_TEXT_CHARACTERS and over), in order: what `countLongTexts`
 * counts and `rememberCounted` pairs with its counts.
 */
export function longTexts(texts: readonly string[]): string[] {
  return texts.filter((text) => text.length >= LONG_TEXT_CHARACTERS);
}

/** Counts the long texts among `texts` now, with their keys (on a worker thread: it takes long). */
export function countLongTexts(encoding: SlicedTextCounting, texts: readonly string[]): CountedText[] {
  return longTexts(texts).map((text) => ({ key: textKey(text), tokens: encoding.countNow(text) }));
}

export interface PreparedCounterOptions {
  /** Long texts whose counts are kept (the least recently used go first). */
  readonly keptCounts?: number;
}

/** The counts one `whenCounted` call has gathered, and the texts its last run lacked. */
interface Preparation {
  readonly shortCounts: Map<string, number>;
  /** By text key. */
  readonly longCounts: Map<string, number>;
  readonly lacking: Set<string>;
  readonly slices: CountingSlices;
}

const estimated = (text: string): number => Math.ceil(text.length / 4);

export class PreparedCounter implements PreparedTokenCounter {
  readonly name: string;
  private readonly kept: TokenCountCache;
  /** Long texts being counted in slices, by key, so that two requests count a text once. */
  private readonly inFlight = new Map<string, Promise<number>>();
  private countedAhead = 0;
  private countedOnTheSpot = 0;
  private preparations = 0;
  private preparationRounds = 0;

  constructor(
    private readonly encoding: SlicedTextCounting,
    options: PreparedCounterOptions = {},
  ) {
    this.name = encoding.name;
    this.kept = new TokenCountCache(options.keptCounts);
  }

  countPieces(pieces: readonly string[], imageCount: number): number {
    let tokens = imageCount * this.encoding.imageTokens;
    for (const piece of pieces) tokens += this.countText(piece);
    return tokens;
  }

  isReady(texts: readonly string[]): boolean {
    return texts.every(
      (text) => text.length < LONG_TEXT_CHARACTERS || this.kept.get(textKey(text)) !== undefined,
    );
  }

  async countAhead(
    texts: readonly string[],
    slices: CountingSlices = new TimedCountingSlices(),
  ): Promise<void> {
    for (const text of texts) {
      if (text.length < LONG_TEXT_CHARACTERS) continue;
      const key = textKey(text);
      if (this.kept.get(key) === undefined) await this.countLong(text, key, slices);
    }
  }

  rememberCounted(texts: readonly string[], counted: readonly CountedText[]): void {
    const long = longTexts(texts);
    // counts of other texts than these are not taken (they would be another text's)
    if (long.length !== counted.length) return;
    long.forEach((text, index) => {
      const { key, tokens } = counted[index]!;
      rememberTextKey(text, key);
      if (this.kept.get(key) === undefined) {
        this.kept.set(key, tokens);
        this.countedAhead += 1;
      }
    });
  }

  async whenCounted<T>(
    compute: (counter: TokenCounter) => T,
    slices: CountingSlices = new TimedCountingSlices(),
  ): Promise<T> {
    this.preparations += 1;
    const preparation: Preparation = {
      shortCounts: new Map(),
      longCounts: new Map(),
      lacking: new Set(),
      slices,
    };
    const probe: TokenCounter = {
      name: this.name,
      countPieces: (pieces, imageCount) => {
        let tokens = imageCount * this.encoding.imageTokens;
        for (const piece of pieces) tokens += this.probeText(piece, preparation);
        return tokens;
      },
    };
    for (let round = 1; round <= MAX_PREPARATION_ROUNDS; round += 1) {
      this.preparationRounds += 1;
      let outcome: { readonly value: T } | { readonly error: unknown };
      try {
        outcome = { value: compute(probe) };
      } catch (error) {
        outcome = { error };
      }
      if (preparation.lacking.size === 0) {
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      }
      await this.countLacking(preparation);
    }
    return compute({
      name: this.name,
      countPieces: (pieces, imageCount) => {
        let tokens = imageCount * this.encoding.imageTokens;
        for (const piece of pieces) {
          const known =
            piece.length < LONG_TEXT_CHARACTERS
              ? preparation.shortCounts.get(piece)
              : preparation.longCounts.get(textKey(piece));
          tokens += known ?? this.countText(piece);
        }
        return tokens;
      },
    });
  }

  stats(): PreparedCountStats {
    return {
      keptCounts: this.kept.size,
      countedAhead: this.countedAhead,
      countedOnTheSpot: this.countedOnTheSpot,
      preparations: this.preparations,
      preparationRounds: this.preparationRounds,
    };
  }

  private countText(text: string): number {
    if (text.length < LONG_TEXT_CHARACTERS) return this.encoding.countNow(text);
    const key = textKey(text);
    let tokens = this.kept.get(key);
    if (tokens === undefined) {
      tokens = this.encoding.countNow(text);
      this.countedOnTheSpot += 1;
      this.kept.set(key, tokens);
    }
    return tokens;
  }

  /** A count the preparation has; a short text counted while the slice lasts; else noted as lacking. */
  private probeText(text: string, preparation: Preparation): number {
    if (text.length < LONG_TEXT_CHARACTERS) {
      let tokens = preparation.shortCounts.get(text);
      if (tokens === undefined && !preparation.slices.due()) {
        tokens = this.encoding.countNow(text);
        preparation.shortCounts.set(text, tokens);
      }
      if (tokens !== undefined) return tokens;
    } else {
      const key = textKey(text);
      const tokens = preparation.longCounts.get(key) ?? this.kept.get(key);
      if (tokens !== undefined) {
        preparation.longCounts.set(key, tokens);
        return tokens;
      }
    }
    preparation.lacking.add(text);
    return estimated(text);
  }

  private async countLacking(preparation: Preparation): Promise<void> {
    const { slices } = preparation;
    if (slices.due()) await slices.yield();
    for (const text of preparation.lacking) {
      if (text.length < LONG_TEXT_CHARACTERS) {
        preparation.shortCounts.set(text, this.encoding.countNow(text));
      } else {
        const key = textKey(text);
        preparation.longCounts.set(key, this.kept.get(key) ?? (await this.countLong(text, key, slices)));
      }
      if (slices.due()) await slices.yield();
    }
    preparation.lacking.clear();
  }

  private countLong(text: string, key: string, slices: CountingSlices): Promise<number> {
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = this.encoding
        .countInSlices(text, slices)
        .then((tokens) => {
          this.kept.set(key, tokens);
          this.countedAhead += 1;
          return tokens;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }
}

/** A counter that is always quick (chars/4) as a PreparedTokenCounter: nothing to prepare. */
export function alwaysReady(counter: TokenCounter): PreparedTokenCounter {
  let preparations = 0;
  return {
    name: counter.name,
    countPieces: (pieces, imageCount) => counter.countPieces(pieces, imageCount),
    isReady: () => true,
    countAhead: () => Promise.resolve(),
    rememberCounted: () => undefined,
    whenCounted<T>(compute: (counter: TokenCounter) => T): Promise<T> {
      preparations += 1;
      try {
        return Promise.resolve(compute(counter));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    stats: () => ({
      keptCounts: 0,
      countedAhead: 0,
      countedOnTheSpot: 0,
      preparations,
      preparationRounds: preparations,
    }),
  };
}
