// Adapter: NavigateSession → the navigation service.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newAttemptId } from '../../attempts/attempt-ids';
import type { NavigationResult } from '../../branch-summary/navigation-result';
import { NavigationService } from '../../branch-summary/navigation.service';
import { NavigateSessionCommand } from './navigate-session.command';

@CommandHandler(NavigateSessionCommand)
export class NavigateSessionHandler implements ICommandHandler<NavigateSessionCommand> {
  constructor(private readonly navigation: NavigationService) {}

  execute({ sessionId, targetId, options, context }: NavigateSessionCommand): Promise<NavigationResult> {
    return this.navigation.navigate({
      sessionId,
      targetId,
      context,
      summarize: options.summarize === true,
      attemptId: options.attemptId ?? newAttemptId(),
      ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
    });
  }
}
