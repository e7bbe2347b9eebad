// The sagas the runner feeds, in the order their commands run for one event.
import { continuationSaga } from './continuation.saga';
import { overflowRecoverySaga } from './overflow-recovery.saga';
import type { SessionSaga } from './saga-messages';
import { thresholdCompactionSaga } from './threshold-compaction.saga';

export const SESSION_SAGAS: readonly SessionSaga[] = [
  thresholdCompactionSaga,
  overflowRecoverySaga,
  continuationSaga,
];
