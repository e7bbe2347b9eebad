// Entry and header timestamps: ISO 8601 date-times with a time zone, as pi writes them
// (`2025-12-09T00:53:29.825Z`); an offset (`+01:00`) and any precision of seconds are accepted.
import { z } from 'zod';

export const isoDateTimeSchema = z.iso
  .datetime({
    offset: true,
    error: 'must be an ISO 8601 date-time with a time zone (2025-01-31T09:30:00.000Z)',
  })
  .describe('an ISO 8601 date-time with Z or an offset');

export function isIsoDateTime(text: string): boolean {
  return isoDateTimeSchema.safeParse(text).success;
}
