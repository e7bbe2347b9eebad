export * from './attempt-workflow';
