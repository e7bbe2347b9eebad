// A bound on how many requests of one kind each tenant may have in progress at once. A request
// asks to be admitted; it gets a release function, or nothing when its tenant is at the bound.
// Tenants are counted apart, so one tenant at its bound never holds another back.
export class TenantAdmissions {
  private readonly inProgress = new Map<string, number>();

  constructor(readonly perTenant: number) {
    if (!Number.isInteger(perTenant) || perTenant < 1) {
      throw new RangeError(`the bound per tenant must be a positive integer, not ${perTenant}`);
    }
  }

  /** How many of `tenant`'s requests are admitted and not yet released. */
  admitted(tenant: string): number {
    return this.inProgress.get(tenant) ?? 0;
  }

  /** A release function (idempotent) when `tenant` is under its bound; undefined when it is not. */
  admit(tenant: string): (() => void) | undefined {
    const count = this.admitted(tenant);
    if (count >= this.perTenant) return undefined;
    this.inProgress.set(tenant, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.admitted(tenant) - 1;
      if (left <= 0) this.inProgress.delete(tenant);
      else this.inProgress.set(tenant, left);
    };
  }
}
