// A one-shot promise with its settle functions, for "caught up" and "position reached" waits.
// A rejection nobody awaits is not reported as unhandled: the runner rejects waits on stop.

export class Signal<Value = void> {
  readonly promise: Promise<Value>;
  private settled = false;
  private resolvePromise!: (value: Value) => void;
  private rejectPromise!: (reason: unknown) => void;

  constructor() {
    this.promise = new Promise<Value>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    this.promise.catch(() => undefined);
  }

  get isSettled(): boolean {
    return this.settled;
  }

  resolve(value: Value): void {
    if (this.settled) return;
    this.settled = true;
    this.resolvePromise(value);
  }

  reject(reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectPromise(reason);
  }
}
