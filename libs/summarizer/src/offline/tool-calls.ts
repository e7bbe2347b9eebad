// Reads the `[Assistant tool calls]` line of a transcript back into calls. The serialiser writes
// each call as `name(key=<JSON value>, key=<JSON value>)` and joins calls with `; `; values are
// JSON, so a small scanner that respects strings and brackets recovers them exactly.

export interface TranscriptToolCall {
  readonly name: string;
  /** Arguments whose JSON value could be read; the others are left out. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Reads one JSON value starting at `start`; returns its source text and where it ends. */
function scanJsonValue(text: string, start: number): { source: string; end: number } {
  let depth = 0;
  let index = start;
  while (index < text.length) {
    const character = text[index];
    if (character === '"') {
      index += 1;
      while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
      index += 1;
      if (depth === 0) break;
      continue;
    }
    if (character === '{' || character === '[') depth += 1;
    else if (character === '}' || character === ']') {
      depth -= 1;
      if (depth === 0) {
        index += 1;
        break;
      }
    } else if (depth === 0 && (character === ',' || character === ')')) break;
    index += 1;
  }
  return { source: text.slice(start, index), end: index };
}

function parseJson(source: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(source) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Parses `key=value, key=value)` from `start`; returns the arguments and the index after `)`. */
function scanArguments(text: string, start: number): { arguments: Record<string, unknown>; end: number } {
  const argumentsByName: Record<string, unknown> = {};
  let index = start;
  while (index < text.length && text[index] !== ')') {
    const keyMatch = /^\s*([^=,()\s]+)=/.exec(text.slice(index, index + 200));
    if (keyMatch === null) break;
    const key = keyMatch[1] ?? '';
    const value = scanJsonValue(text, index + keyMatch[0].length);
    const parsed = parseJson(value.source);
    if (parsed.ok) argumentsByName[key] = parsed.value;
    index = value.end;
    if (text[index] === ',') index += 1;
  }
  return { arguments: argumentsByName, end: index < text.length ? index + 1 : index };
}

/** The calls of one `[Assistant tool calls]` block. */
export function parseToolCalls(text: string): TranscriptToolCall[] {
  const calls: TranscriptToolCall[] = [];
  let index = 0;
  while (index < text.length) {
    const nameMatch = /^(?:;\s*)?\s*([^\s(;]+)\(/.exec(text.slice(index, index + 300));
    if (nameMatch === null) break;
    const scanned = scanArguments(text, index + nameMatch[0].length);
    calls.push({ name: nameMatch[1] ?? '', arguments: scanned.arguments });
    index = scanned.end;
  }
  return calls;
}
