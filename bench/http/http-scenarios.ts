// What the http suite runs: its plans (rounds and seconds per row) and its rows, GET /health as
// the baseline, appends by 1, 4, 16 and 64 agents each on its own session, GET context of a
// 1,000-entry session and GET one session, each as the wrk scenario of a round.
import type { CaseRole } from '../harness';
import type { WrkScenario } from './wrk-load';

export const READ_SESSION_ENTRIES = 1_000;
export const READ_SESSION_ID = 'http-read';
export const AGENT_COUNTS = [1, 4, 16, 64] as const;
const READ_CONNECTIONS = 16;

export interface HttpPlan {
  readonly rounds: number;
  /** Whole seconds (wrk takes no fractions): a warm-up run, then the measured run, per row and round. */
  readonly warmupSeconds: number;
  readonly measureSeconds: number;
}

export const fullPlan: HttpPlan = { rounds: 3, warmupSeconds: 1, measureSeconds: 3 };
export const quickPlan: HttpPlan = { rounds: 1, warmupSeconds: 1, measureSeconds: 2 };

export interface RunSpec {
  readonly name: string;
  readonly role: CaseRole;
  readonly label: string;
  readonly connections: number;
  /** Agents appending (0 for a read). */
  readonly agents: number;
  /** `prefix` tells the warm-up run's sessions from the measured run's. */
  scenario(round: number, prefix: string): WrkScenario;
}

export const specs: readonly RunSpec[] = [
  {
    name: 'http/health',
    role: 'baseline',
    label: `GET /health, ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: '/health' }),
  },
  ...AGENT_COUNTS.map((agents): RunSpec => ({
    name: `http/append-${agents}`,
    role: 'subject',
    label: `POST /sessions/:id/entries, ${agents} agent${agents === 1 ? '' : 's'}`,
    connections: agents,
    agents,
    scenario: (round, prefix) => ({
      kind: 'append',
      sessionPrefix: `${prefix}-agents${agents}-round${round}`,
    }),
  })),
  {
    name: 'http/context',
    role: 'subject',
    label: `GET /sessions/:id/context (${READ_SESSION_ENTRIES.toLocaleString('en-US')} entries), ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: `/sessions/${READ_SESSION_ID}/context` }),
  },
  {
    name: 'http/session',
    role: 'subject',
    label: `GET /sessions/:id, ${READ_CONNECTIONS} connections`,
    connections: READ_CONNECTIONS,
    agents: 0,
    scenario: () => ({ kind: 'get', path: `/sessions/${READ_SESSION_ID}` }),
  },
];
