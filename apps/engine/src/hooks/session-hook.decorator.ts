// Marks a provider as a session hook provider: any module's provider carrying `@SessionHook()`
// is found at start-up and its handlers run (lower `order` first, then discovery order).
import { DiscoveryService } from '@nestjs/core';

export interface SessionHookOptions {
  /** Lower runs first; 0 by default. */
  readonly order?: number;
}

export const SessionHook = DiscoveryService.createDecorator<SessionHookOptions>();
