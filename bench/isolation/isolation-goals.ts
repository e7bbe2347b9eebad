// The goals of issue 22 for the isolation suite, checked per attack against the quiet phase:
// tenant B's append and context p99 within a factor of quiet, no unexpected answer for B, and
// the engine's event loop never held longer than a bound in the window.
import { formatMilliseconds } from '../harness';
import { letterOf, type PhaseName, type PhaseResult } from './isolation-phase';
import type { KindFigures } from './tenant-b-workload';

/** The goals of issue 22: B's append and context p99 under an attack within this factor of quiet… */
export const P99_FACTOR_GOAL = 3;
/** …and the engine's event loop never held longer than this in the window. */
export const STALL_GOAL_MS = 100;

export interface GoalCheck {
  readonly phase: PhaseName;
  readonly p99Ratios: Readonly<Record<'append' | 'context' | 'health', number>>;
  /** B's append and context p99 within ×3 of quiet (/health's ratio is shown, not judged). */
  readonly p99WithinGoal: boolean;
  readonly tenantBServerErrors: number;
  readonly tenantBErrors: number;
  readonly tenantBOtherStatuses: number;
  readonly longestStallMs: number;
  readonly stallWithinGoal: boolean;
  readonly met: boolean;
}

export function goalChecks(phases: readonly PhaseResult[]): GoalCheck[] {
  const quiet = phases.find((phase) => phase.name === 'quiet');
  if (quiet === undefined) throw new Error('the quiet phase is missing');
  return phases
    .filter((phase) => phase !== quiet)
    .map((phase) => {
      const ratio = (kind: 'append' | 'context' | 'health'): number =>
        Math.round((phase.tenantB[kind].p99Ms / quiet.tenantB[kind].p99Ms) * 100) / 100;
      const p99Ratios = { append: ratio('append'), context: ratio('context'), health: ratio('health') };
      const all = [phase.tenantB.append, phase.tenantB.context, phase.tenantB.health];
      const sum = (pick: (figures: KindFigures) => number): number =>
        all.reduce((total, figures) => total + pick(figures), 0);
      const p99WithinGoal = p99Ratios.append <= P99_FACTOR_GOAL && p99Ratios.context <= P99_FACTOR_GOAL;
      const tenantBServerErrors = sum((figures) => figures.serverErrors);
      const tenantBErrors = sum((figures) => figures.errors);
      const tenantBOtherStatuses = sum((figures) => figures.otherStatuses);
      const longestStallMs = phase.engineLoop.longestStallMs;
      const stallWithinGoal = longestStallMs <= STALL_GOAL_MS;
      return {
        phase: phase.name,
        p99Ratios,
        p99WithinGoal,
        tenantBServerErrors,
        tenantBErrors,
        tenantBOtherStatuses,
        longestStallMs,
        stallWithinGoal,
        met:
          p99WithinGoal &&
          stallWithinGoal &&
          tenantBServerErrors + tenantBErrors + tenantBOtherStatuses === 0,
      };
    });
}

/** The notice that reports one check. */
export function goalNotice(check: GoalCheck): string {
  return (
    `(${letterOf(check.phase)}) ${check.phase}: goal ${check.met ? 'met' : 'MISSED'} — B's p99 ×${check.p99Ratios.append} / ×${check.p99Ratios.context} of quiet ` +
    `for append / context (goal ×${P99_FACTOR_GOAL}; /health ×${check.p99Ratios.health}), ` +
    `${check.tenantBServerErrors} 5xx, ${check.tenantBOtherStatuses} other statuses and ${check.tenantBErrors} socket errors for B (goal none), ` +
    `engine's longest event-loop stall ${formatMilliseconds(check.longestStallMs)} (goal ≤ ${STALL_GOAL_MS} ms)`
  );
}
