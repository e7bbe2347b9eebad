// zod readers for the kinds of values the engine takes from environment variables: every
// variable arrives as an optional string, and each reader says in its message what it expects.
import { z } from 'zod';

const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1024,
  mb: 1024 * 1024,
  gb: 1024 * 1024 * 1024,
};

const BYTE_SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;

/** `1048576`, `512kb`, `10mb`, `1.5gb` (binary units) → bytes; undefined when unreadable. */
export function parseByteSize(text: string): number | undefined {
  const match = BYTE_SIZE_PATTERN.exec(text.trim());
  if (match === null) return undefined;
  const [, amount = '', unit = 'b'] = match;
  const bytes = Math.floor(Number(amount) * (BYTE_UNITS[unit.toLowerCase()] ?? 1));
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** A variable that is unset or blank counts as unset. */
function unsetWhenBlank(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? undefined : value;
}

/** An integer within bounds, with a default. */
export function integerVariable(options: { min: number; max: number; default: number }) {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text, context) => {
        if (text === undefined) return options.default;
        const value = Number(text.trim());
        if (!Number.isInteger(value) || value < options.min || value > options.max) {
          context.addIssue({
            code: 'custom',
            message: `must be an integer from ${options.min} to ${options.max}, not '${text}'`,
          });
          return z.NEVER;
        }
        return value;
      }),
  );
}

/** An optional positive integer (no default). */
export function optionalPositiveIntegerVariable() {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text, context) => {
        if (text === undefined) return undefined;
        const value = Number(text.trim());
        if (!Number.isSafeInteger(value) || value < 1) {
          context.addIssue({ code: 'custom', message: `must be a positive integer, not '${text}'` });
          return z.NEVER;
        }
        return value;
      }),
  );
}

/** A size in bytes (`10mb`, `512kb`, `1048576`), with a default. */
export function byteSizeVariable(defaultSize: string) {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text, context) => {
        const bytes = parseByteSize(text ?? defaultSize);
        if (bytes === undefined) {
          context.addIssue({
            code: 'custom',
            message: `must be a size such as 1048576, 512kb or 10mb, not '${text}'`,
          });
          return z.NEVER;
        }
        return bytes;
      }),
  );
}

/** An optional size in bytes (no default). */
export function optionalByteSizeVariable() {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text, context) => {
        if (text === undefined) return undefined;
        const bytes = parseByteSize(text);
        if (bytes === undefined) {
          context.addIssue({
            code: 'custom',
            message: `must be a size such as 1048576, 512kb or 10mb, not '${text}'`,
          });
          return z.NEVER;
        }
        return bytes;
      }),
  );
}

/** A non-blank string, or undefined. */
export function optionalTextVariable() {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text) => text?.trim()),
  );
}

/** One of a few words, with a default. */
export function choiceVariable<const Choice extends string>(
  choices: readonly Choice[],
  defaultChoice: Choice,
) {
  return z.preprocess(
    unsetWhenBlank,
    z
      .string()
      .optional()
      .transform((text, context): Choice => {
        if (text === undefined) return defaultChoice;
        const choice = choices.find((candidate) => candidate === text.trim().toLowerCase());
        if (choice === undefined) {
          context.addIssue({
            code: 'custom',
            message: `must be one of ${choices.join(', ')}, not '${text}'`,
          });
          return z.NEVER;
        }
        return choice;
      }),
  );
}
