// The goals of issue 22 for the http suite: appends/s at 16 agents against the /health rate,
// throughput growing from 1 to 4 to 16 agents, and p99 against p50 at 16 agents; checked on the
// pooled results and shown as a table.
import { formatMilliseconds, formatRate, type CaseResult, type SummaryTable } from '../harness';
import { detail } from './http-results';

/** Goals of issue 22. */
const GOAL_APPEND_SHARE_OF_HEALTH = 0.5;
const GOAL_P99_OVER_P50 = 5;
/** "Grows" from 1 to 4 to 16 agents: each step at least this factor, above round-to-round noise. */
const GOAL_GROWTH_STEP = 1.1;

export interface GoalCheck {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
}

export function goalChecks(cases: readonly CaseResult[]): GoalCheck[] {
  const health = cases.find((result) => result.name === 'http/health')!;
  const appends = (agents: number): CaseResult =>
    cases.find((result) => result.name === `http/append-${agents}`)!;
  const [one, four, sixteen] = [appends(1), appends(4), appends(16)];
  const share = sixteen.operationsPerSecond / health.operationsPerSecond;
  const steps = [
    four.operationsPerSecond / one.operationsPerSecond,
    sixteen.operationsPerSecond / four.operationsPerSecond,
  ];
  const spread = detail(sixteen, 'p99OverP50');
  return [
    {
      goal: `appends/s at 16 agents ≥ ${GOAL_APPEND_SHARE_OF_HEALTH} × the /health rate`,
      measured: `${formatRate(sixteen.operationsPerSecond)} against ${formatRate(health.operationsPerSecond)}/s: ×${share.toFixed(2)}`,
      met: share >= GOAL_APPEND_SHARE_OF_HEALTH,
    },
    {
      goal: `throughput grows from 1 to 4 to 16 agents (each step ≥ ×${GOAL_GROWTH_STEP})`,
      measured:
        `${formatRate(one.operationsPerSecond)} → ${formatRate(four.operationsPerSecond)} → ${formatRate(sixteen.operationsPerSecond)}/s ` +
        `(×${steps[0]!.toFixed(2)}, ×${steps[1]!.toFixed(2)})`,
      met: steps.every((step) => step >= GOAL_GROWTH_STEP),
    },
    {
      goal: `p99 at 16 agents ≤ ${GOAL_P99_OVER_P50} × p50`,
      measured: `${formatMilliseconds(sixteen.p99Ms)} / ${formatMilliseconds(sixteen.medianMs)} = ×${spread.toFixed(1)}`,
      met: spread <= GOAL_P99_OVER_P50,
    },
  ];
}

export function goalTable(checks: readonly GoalCheck[]): SummaryTable {
  return {
    title: 'Goals of issue 22 for the http suite',
    columns: ['goal', 'measured', 'verdict'],
    rows: checks.map((check) => [check.goal, check.measured, check.met ? 'met' : '**missed**']),
  };
}
