// The notice appended to a shell or Python execution shown to the model when its output was
// cut or limited (reference §2.2: "Showing lines a-b of N…"). `meta` is stored as opaque data,
// so it is read defensively: fields of the wrong shape are ignored.

type Fields = Readonly<Record<string, unknown>>;

function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function numberField(fields: Fields | undefined, name: string): number | undefined {
  const value = fields?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function formatByteCount(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function truncationNotice(truncation: Fields): string | undefined {
  const totalLines = numberField(truncation, 'totalLines');
  const range = fieldsOf(truncation['shownRange']);
  const rangeStart = numberField(range, 'start');
  const rangeEnd = numberField(range, 'end');
  const outputLines = numberField(truncation, 'outputLines');
  let notice: string;
  if (
    rangeStart !== undefined &&
    rangeEnd !== undefined &&
    rangeEnd >= rangeStart &&
    totalLines !== undefined
  ) {
    notice = `Showing lines ${rangeStart}-${rangeEnd} of ${totalLines}`;
  } else if (outputLines !== undefined && totalLines !== undefined) {
    notice = `Showing ${outputLines} of ${totalLines} lines`;
  } else {
    return undefined;
  }
  if (truncation['truncatedBy'] === 'bytes') {
    const limit = numberField(truncation, 'maxBytes') ?? numberField(truncation, 'outputBytes');
    if (limit !== undefined) notice += ` (${formatByteCount(limit)} limit)`;
  }
  const nextOffset = numberField(truncation, 'nextOffset');
  if (nextOffset !== undefined) notice += `. Use :${nextOffset} to continue`;
  const artifactId = truncation['artifactId'];
  if (typeof artifactId === 'string' && artifactId.length > 0) {
    notice += `. Read artifact://${artifactId} for full output`;
  }
  return notice;
}

function limitNotices(limits: Fields): string[] {
  const notices: string[] = [];
  const countLimits: readonly (readonly [string, string])[] = [
    ['matchLimit', 'matches'],
    ['resultLimit', 'results'],
    ['headLimit', 'results'],
  ];
  for (const [name, noun] of countLimits) {
    const limit = fieldsOf(limits[name]);
    const reached = numberField(limit, 'reached');
    const suggestion = numberField(limit, 'suggestion');
    if (reached !== undefined && suggestion !== undefined) {
      notices.push(`${reached} ${noun} limit reached. Use limit=${suggestion} for more`);
    }
  }
  const maxColumn = numberField(fieldsOf(limits['columnTruncated']), 'maxColumn');
  if (maxColumn !== undefined) notices.push(`Some lines truncated to ${maxColumn} chars`);
  return notices;
}

/**
 * The notice for an execution's `meta`: empty when there is nothing to say, otherwise a blank
 * line and the notices in brackets, joined by ". ".
 */
export function outputNotice(meta: unknown): string {
  const fields = fieldsOf(meta);
  if (fields === undefined) return '';
  const notices: string[] = [];
  const truncation = fieldsOf(fields['truncation']);
  const truncationText = truncation !== undefined ? truncationNotice(truncation) : undefined;
  if (truncationText !== undefined) notices.push(truncationText);
  const limits = fieldsOf(fields['limits']);
  if (limits !== undefined) notices.push(...limitNotices(limits));
  return notices.length > 0 ? `\n\n[${notices.join('. ')}]` : '';
}
