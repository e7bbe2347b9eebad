import { TenantAdmissions } from './tenant-admissions';

describe('TenantAdmissions', () => {
  it('admits each tenant up to its bound, counting tenants apart', () => {
    const admissions = new TenantAdmissions(2);
    expect(admissions.admit('a')).toBeInstanceOf(Function);
    expect(admissions.admit('a')).toBeInstanceOf(Function);
    expect(admissions.admit('a')).toBeUndefined();
    expect(admissions.admit('b')).toBeInstanceOf(Function);
    expect(admissions.admitted('a')).toBe(2);
    expect(admissions.admitted('b')).toBe(1);
  });

  it('admits again once a request is released, and a second release of the same one changes nothing', () => {
    const admissions = new TenantAdmissions(1);
    const release = admissions.admit('a');
    expect(admissions.admit('a')).toBeUndefined();
    release?.();
    release?.();
    expect(admissions.admitted('a')).toBe(0);
    expect(admissions.admit('a')).toBeInstanceOf(Function);
    expect(admissions.admit('a')).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a bound of %p', (bound) => {
    expect(() => new TenantAdmissions(bound)).toThrow(RangeError);
  });
});
