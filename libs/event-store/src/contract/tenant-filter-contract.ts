// Contract: the tenant criterion of EventFilter, in reads of the global log (both directions,
// with maxCount and the other criteria) and in subscriptions (history and live). An event's
// tenant is `metadata.tenant` when it is a non-empty string, else `default`.
import type { EventFilter, EventToAppend } from '../port';
import {
  anEvent,
  collect,
  eventsOf,
  idsOf,
  newScope,
  SubscriptionReader,
  type ContractContext,
  type TestScope,
} from './contract-support';

interface TenantEvents {
  readonly scope: TestScope;
  readonly acme: EventToAppend[];
  readonly globex: EventToAppend[];
  /** Events without a usable tenant: none, an empty string, a number, null. */
  readonly untenanted: EventToAppend[];
}

export function describeTenantFilterContract({ store, features }: ContractContext): void {
  /** Events of two tenants and untenanted ones, interleaved over three streams. */
  async function eventsOfTenants(): Promise<TenantEvents> {
    const scope = newScope();
    const acme = [0, 1, 2].map((index) => anEvent('noted', { index }, { tenant: 'acme' }));
    const globex = [0, 1].map((index) => anEvent('noted', { index }, { tenant: 'globex' }));
    const untenanted = [
      anEvent('noted', { index: 0 }),
      anEvent('noted', { index: 1 }, { tenant: '' }),
      anEvent('noted', { index: 2 }, { tenant: 42 }),
      anEvent('noted', { index: 3 }, { tenant: null, actor: 'ops' }),
    ];
    await store().appendToStream(scope.stream('session-a'), [acme[0]!, untenanted[0]!]);
    await store().appendToStream(scope.stream('session-g'), [globex[0]!, untenanted[1]!]);
    await store().appendToStream(scope.stream('session-a'), [acme[1]!]);
    await store().appendToStream(scope.stream('other-a'), [acme[2]!, untenanted[2]!]);
    await store().appendToStream(scope.stream('session-g'), [globex[1]!, untenanted[3]!]);
    return { scope, acme, globex, untenanted };
  }

  function readIds(filter: EventFilter, options: { direction?: 'backwards'; maxCount?: number } = {}) {
    return collect(store().readAll({ ...options, filter })).then(idsOf);
  }

  describe('filtering by tenant', () => {
    it('reads only the events of the tenant asked for, in position order', async () => {
      const { scope, acme, globex } = await eventsOfTenants();
      expect(await readIds({ tenant: 'acme', streamPrefixes: [scope.prefix] })).toEqual(idsOf(acme));
      expect(await readIds({ tenant: 'globex', streamPrefixes: [scope.prefix] })).toEqual(idsOf(globex));
      expect(await readIds({ tenant: 'initech', streamPrefixes: [scope.prefix] })).toEqual([]);
    });

    it("counts an event without a non-empty string tenant as tenant 'default'", async () => {
      const { scope, untenanted } = await eventsOfTenants();
      expect(await readIds({ tenant: 'default', streamPrefixes: [scope.prefix] })).toEqual(idsOf(untenanted));
    });

    it('combines the tenant with stream prefixes and event types, backwards and with maxCount', async () => {
      const { scope, acme } = await eventsOfTenants();
      const sessions = { tenant: 'acme', streamPrefixes: [scope.stream('session-')] };
      expect(await readIds(sessions)).toEqual(idsOf(acme.slice(0, 2)));
      expect(await readIds({ ...sessions, eventTypes: ['other-type'] })).toEqual([]);
      expect(await readIds({ ...sessions, eventTypes: ['not*', 'other'] })).toEqual(idsOf(acme.slice(0, 2)));
      expect(
        await readIds(
          { tenant: 'acme', streamPrefixes: [scope.prefix] },
          { direction: 'backwards', maxCount: 2 },
        ),
      ).toEqual(idsOf([acme[2]!, acme[1]!]));
    });

    it('delivers only the tenant’s events in a subscription, history and live', async () => {
      const { scope, acme } = await eventsOfTenants();
      const reader = new SubscriptionReader(
        store().subscribe({ filter: { tenant: 'acme', streamPrefixes: [scope.prefix] } }),
        features.messageTimeoutMs,
      );
      try {
        expect(idsOf(eventsOf(await reader.untilCaughtUp()))).toEqual(idsOf(acme));
        const live = anEvent('noted', { live: true }, { tenant: 'acme' });
        await store().appendToStream(scope.stream('session-g'), [anEvent('noted', {}, { tenant: 'globex' })]);
        await store().appendToStream(scope.stream('session-x'), [anEvent('noted', {})]);
        await store().appendToStream(scope.stream('session-a'), [live]);
        expect(idsOf(await reader.events(1))).toEqual([live.id]);
      } finally {
        await reader.close();
      }
    });
  });
}
