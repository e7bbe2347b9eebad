// Answering with JSON Lines of any length (an event log, anchors): the lines are written as they
// are read, waiting for the client to take each chunk before reading more, so the engine holds
// about one line at a time whatever the size of the answer. A client that goes away ends it.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

export const JSON_LINES_MEDIA_TYPE = 'application/x-ndjson';

/** Writes `lines` (each with its line break) as a 200 answer; `filename` makes it a download. */
export async function writeJsonLines(
  response: ServerResponse,
  lines: AsyncIterable<string>,
  filename?: string,
): Promise<void> {
  const iterator = lines[Symbol.asyncIterator]();
  // The first line is read before the status is sent, so that a failure to read is still a problem answer.
  let next = await iterator.next();
  response.statusCode = 200;
  response.setHeader('Content-Type', `${JSON_LINES_MEDIA_TYPE}; charset=utf-8`);
  if (filename !== undefined)
    response.setHeader('Content-Disposition', `attachment; filename="${encodeURIComponent(filename)}"`);
  try {
    while (next.done !== true) {
      if (response.destroyed) break;
      if (!response.write(next.value)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
      next = await iterator.next();
    }
  } finally {
    if (next.done !== true) await iterator.return?.();
  }
  response.end();
}
