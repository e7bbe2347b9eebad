// The events of a session's writer lease: one writer at a time holds it, and while it is in
// force every write to the session must carry its token. Each lease has a sequence number,
// one more than the previous lease's, and its token starts with it (`<sequence>.<nonce>`), so
// tokens are fencing tokens: a later lease always has a higher number, and a write bearing an
// older token is refused whenever it arrives. Expiry is judged when a command is decided, from
// the recorded `expiresAt`; it is recorded (`LeaseExpired`) when the next writer takes the lease.
import { z } from 'zod';

const sequence = z.number().int().positive();
const millis = z.number().nonnegative();
const holder = z.string().min(1);

export const leaseTakenSchema = z.object({
  type: z.literal('LeaseTaken'),
  data: z.object({
    sequence,
    token: z.string().min(1),
    holder,
    ttlMs: millis,
    takenAt: millis,
    expiresAt: millis,
  }),
});

export const leaseRenewedSchema = z.object({
  type: z.literal('LeaseRenewed'),
  data: z.object({ sequence, ttlMs: millis, renewedAt: millis, expiresAt: millis }),
});

export const leaseReleasedSchema = z.object({
  type: z.literal('LeaseReleased'),
  data: z.object({ sequence, releasedAt: millis }),
});

export const leaseExpiredSchema = z.object({
  type: z.literal('LeaseExpired'),
  /** `recordedAt`: when the next writer found it expired (after `expiresAt`). */
  data: z.object({ sequence, holder, expiresAt: millis, recordedAt: millis }),
});
