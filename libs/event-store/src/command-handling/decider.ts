// The one decider type of the project (STYLE.md habit 1), in emmett's order: `Decider<State,
// Command, Event>`. The generic command handler drives it, libs/testing's DeciderSpecification
// checks it, and the domain's deciders (libs/session) fit it structurally. It lives with the
// command handling because the store may not import the domain, and the testing library can
// import it (as a type) without a cycle.

/** The three pure functions of a decider; `decide` may throw to refuse a command. */
export interface Decider<State, Command, Event> {
  readonly decide: (command: Command, state: State) => readonly Event[];
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

/** What a decider emits: the store adds ids and metadata. */
export interface DomainEvent {
  readonly type: string;
  readonly data: unknown;
}
