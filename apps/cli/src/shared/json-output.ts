// The one JSON line a command prints with `--json`: bigints (stream revisions) as numbers, or as
// strings past what a JSON number holds exactly.
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint'
      ? item <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(item)
        : item.toString()
      : item,
  )}\n`;
}
