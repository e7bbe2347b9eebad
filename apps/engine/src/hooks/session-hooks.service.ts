// Runs the session hooks with the reference's rules (§8): handlers run one after another in
// order; a handler that throws is logged and processing carries on. For `session_before_*` the
// last non-empty result wins, but the first cancel returns at once; for `session.compacting` the
// last non-empty result wins; the other hooks are notifications whose results are ignored.
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { SessionHook } from './session-hook.decorator';
import type {
  NotificationEvent,
  NotificationHookName,
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
  SessionBeforeTreeEvent,
  SessionBeforeTreeResult,
  SessionCompactingEvent,
  SessionCompactingResult,
  SessionHookHandlers,
  SessionHookName,
} from './session-hook.types';

interface RegisteredHook {
  readonly handlers: SessionHookHandlers;
  readonly order: number;
  readonly sequence: number;
}

function isNonEmpty(result: object | undefined | null | void): result is object {
  if (result === undefined || result === null) return false;
  return Object.values(result).some((value) => value !== undefined && value !== false);
}

@Injectable()
export class SessionHooks implements OnModuleInit {
  private readonly logger = new Logger('SessionHooks');
  private hooks: RegisteredHook[] = [];
  private sequence = 0;

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: SessionHook.KEY })) {
      const instance = wrapper.instance as SessionHookHandlers | undefined;
      if (!instance) continue;
      const options = this.discovery.getMetadataByDecorator(SessionHook, wrapper);
      this.register(instance, options?.order ?? 0);
    }
  }

  /** Adds a hook provider; the returned function removes it. */
  register(handlers: SessionHookHandlers, order = 0): () => void {
    const hook: RegisteredHook = { handlers, order, sequence: this.sequence };
    this.sequence += 1;
    this.hooks = [...this.hooks, hook].sort(
      (left, right) => left.order - right.order || left.sequence - right.sequence,
    );
    return () => {
      this.hooks = this.hooks.filter((registered) => registered !== hook);
    };
  }

  session_before_compact(event: SessionBeforeCompactEvent): Promise<SessionBeforeCompactResult | undefined> {
    return this.runBefore('session_before_compact', (handlers) => handlers.session_before_compact?.(event));
  }

  session_before_tree(event: SessionBeforeTreeEvent): Promise<SessionBeforeTreeResult | undefined> {
    return this.runBefore('session_before_tree', (handlers) => handlers.session_before_tree?.(event));
  }

  async 'session.compacting'(event: SessionCompactingEvent): Promise<SessionCompactingResult | undefined> {
    let chosen: SessionCompactingResult | undefined;
    for (const { handlers } of this.hooks) {
      const result = await this.call('session.compacting', () => handlers['session.compacting']?.(event));
      if (isNonEmpty(result)) chosen = result;
    }
    return chosen;
  }

  /** Runs a notification hook; results are ignored and failures only logged. */
  async notify<Name extends NotificationHookName>(name: Name, event: NotificationEvent<Name>): Promise<void> {
    for (const { handlers } of this.hooks) {
      await this.call(name, () => {
        const handler = handlers[name] as ((event: NotificationEvent<Name>) => unknown) | undefined;
        return handler?.call(handlers, event);
      });
    }
  }

  private async runBefore<Result extends { readonly cancel?: boolean }>(
    name: SessionHookName,
    invoke: (handlers: SessionHookHandlers) => Result | undefined | void | Promise<Result | undefined | void>,
  ): Promise<Result | undefined> {
    let chosen: Result | undefined;
    for (const { handlers } of this.hooks) {
      const result = await this.call(name, () => invoke(handlers));
      if (!isNonEmpty(result)) continue;
      if (result.cancel === true) return result;
      chosen = result;
    }
    return chosen;
  }

  private async call<Result>(
    name: SessionHookName,
    invoke: () => Result | undefined | void | Promise<Result | undefined | void>,
  ): Promise<Result | undefined> {
    try {
      return (await invoke()) ?? undefined;
    } catch (error) {
      this.logger.error(
        `hook ${name} threw; carrying on without it: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }
}
