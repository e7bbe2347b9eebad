// Branch-summary preparation and request assembly (pure).
export * from './branch-summary-settings';
export * from './collect-entries';
export * from './prepare-branch-entries';
export * from './branch-summary-request';
