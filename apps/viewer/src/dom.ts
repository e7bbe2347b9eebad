// A small helper to build elements without markup strings: text always goes in as text, so
// nothing read from a session can become HTML.

type Child = Node | string | null | undefined | false;

export interface ElementOptions {
  readonly className?: string;
  readonly text?: string;
  readonly attributes?: Readonly<Record<string, string | undefined>>;
  readonly dataset?: Readonly<Record<string, string>>;
  readonly on?: { readonly [Name in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[Name]) => void };
}

export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  options: ElementOptions = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[Tag] {
  const created = document.createElement(tag);
  if (options.className !== undefined) created.className = options.className;
  if (options.text !== undefined) created.textContent = options.text;
  for (const [name, value] of Object.entries(options.attributes ?? {})) {
    if (value !== undefined) created.setAttribute(name, value);
  }
  for (const [name, value] of Object.entries(options.dataset ?? {})) created.dataset[name] = value;
  for (const [name, listener] of Object.entries(options.on ?? {})) {
    created.addEventListener(name, listener as EventListener);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    created.append(child);
  }
  return created;
}

/** Replaces the children of `parent`. */
export function replaceChildren(parent: Element, children: readonly Child[]): void {
  parent.replaceChildren(
    ...children.filter(
      (child): child is Node | string => child !== null && child !== undefined && child !== false,
    ),
  );
}

/** A definition-list style figure: a caption and a value. */
export function figure(caption: string, value: string, name?: string): HTMLElement {
  return element(
    'div',
    { className: 'figure', ...(name !== undefined ? { dataset: { figure: name } } : {}) },
    [
      element('span', { className: 'figure-caption', text: caption }),
      element('span', { className: 'figure-value', text: value }),
    ],
  );
}
