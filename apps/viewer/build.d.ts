// The types of build.js, for the tests that build the viewer before they serve it.
export declare const VIEWER_DIST: string;
export declare function buildViewer(options?: {
  readonly outdir?: string;
  readonly logLevel?: 'silent' | 'error' | 'warning' | 'info';
}): Promise<string>;
