// A windowed list: however many rows there are, only those in view (and a few around them) are
// in the DOM, each absolutely placed in a spacer as tall as the whole list. Rows have one fixed
// height. Keyboard: the active row is the one focusable row (roving tabindex); arrows, Home/End
// and PageUp/PageDown move it, Enter or Space selects it; other keys go to `onKey`.

export interface VirtualListOptions<Row> {
  readonly rowHeight: number;
  readonly role: 'tree' | 'listbox';
  readonly label: string;
  readonly className?: string;
  /** Fills a row element (emptied before each call). */
  readonly render: (row: Row, element: HTMLElement, index: number) => void;
  readonly onSelect?: (row: Row, index: number) => void;
  /** Keys the list does not handle itself; answers whether it handled this one. */
  readonly onKey?: (event: KeyboardEvent, row: Row, index: number) => boolean;
  /** Called after each render with the indexes in view. */
  readonly onRange?: (first: number, last: number) => void;
  readonly overscan?: number;
}

const DEFAULT_OVERSCAN = 8;

export class VirtualList<Row> {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private rows: readonly Row[] = [];
  private active = 0;
  private readonly rendered = new Map<number, HTMLElement>();
  private frame: number | undefined;

  constructor(private readonly options: VirtualListOptions<Row>) {
    this.element = document.createElement('div');
    this.element.className = `virtual-list ${options.className ?? ''}`.trim();
    this.element.setAttribute('role', options.role);
    this.element.setAttribute('aria-label', options.label);
    this.spacer = document.createElement('div');
    this.spacer.className = 'virtual-list-spacer';
    this.element.append(this.spacer);
    this.element.addEventListener('scroll', () => this.scheduleRender());
    this.element.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.element.addEventListener('click', (event) => this.onClick(event));
    new ResizeObserver(() => this.scheduleRender()).observe(this.element);
  }

  get length(): number {
    return this.rows.length;
  }

  get activeIndex(): number {
    return this.active;
  }

  /** Replaces the rows; the active row moves to `activeIndex` (kept in range). */
  setRows(rows: readonly Row[], activeIndex = this.active): void {
    const hadFocus = this.element.contains(document.activeElement);
    this.rows = rows;
    this.active = Math.max(0, Math.min(activeIndex, rows.length - 1));
    this.spacer.style.height = `${rows.length * this.options.rowHeight}px`;
    for (const [index, element] of this.rendered) {
      if (index < rows.length) this.fill(element, index);
    }
    this.renderNow();
    if (hadFocus) this.rendered.get(this.active)?.focus({ preventScroll: true });
  }

  /** Re-fills the rows in the DOM (after data they show has arrived). */
  refresh(): void {
    for (const [index, element] of this.rendered) this.fill(element, index);
  }

  /** Makes `index` the active row, scrolls it into view and optionally focuses it. */
  setActive(index: number, focus: boolean): void {
    if (this.rows.length === 0) return;
    const previous = this.active;
    this.active = Math.max(0, Math.min(index, this.rows.length - 1));
    this.scrollIntoView(this.active);
    const previousElement = this.rendered.get(previous);
    if (previousElement !== undefined) this.fill(previousElement, previous);
    this.renderNow();
    const element = this.rendered.get(this.active);
    if (element !== undefined) {
      this.fill(element, this.active);
      if (focus) element.focus({ preventScroll: true });
    }
  }

  focus(): void {
    this.rendered.get(this.active)?.focus({ preventScroll: true });
  }

  private scrollIntoView(index: number): void {
    const top = index * this.options.rowHeight;
    const bottom = top + this.options.rowHeight;
    const height = this.element.clientHeight;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (bottom > this.element.scrollTop + height) this.element.scrollTop = bottom - height;
  }

  private scheduleRender(): void {
    if (this.frame !== undefined) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = undefined;
      this.renderNow();
    });
  }

  private renderNow(): void {
    const { rowHeight } = this.options;
    const overscan = this.options.overscan ?? DEFAULT_OVERSCAN;
    const height = this.element.clientHeight || rowHeight * 20;
    const first = Math.max(0, Math.floor(this.element.scrollTop / rowHeight) - overscan);
    const last = Math.min(
      this.rows.length - 1,
      Math.ceil((this.element.scrollTop + height) / rowHeight) + overscan,
    );
    const wanted = new Set<number>();
    for (let index = first; index <= last; index += 1) wanted.add(index);
    if (this.active < this.rows.length) wanted.add(this.active);
    for (const [index, element] of this.rendered) {
      if (!wanted.has(index)) {
        element.remove();
        this.rendered.delete(index);
      }
    }
    for (const index of wanted) {
      if (this.rendered.has(index)) continue;
      const element = document.createElement('div');
      this.fill(element, index);
      this.rendered.set(index, element);
      this.spacer.append(element);
    }
    this.options.onRange?.(first, last);
  }

  private fill(element: HTMLElement, index: number): void {
    const row = this.rows[index];
    if (row === undefined) return;
    element.replaceChildren();
    element.className = 'virtual-row';
    element.setAttribute('role', this.options.role === 'tree' ? 'treeitem' : 'option');
    element.setAttribute('aria-posinset', String(index + 1));
    element.setAttribute('aria-setsize', String(this.rows.length));
    element.dataset['index'] = String(index);
    element.tabIndex = index === this.active ? 0 : -1;
    element.classList.toggle('is-active', index === this.active);
    element.style.transform = `translateY(${index * this.options.rowHeight}px)`;
    element.style.height = `${this.options.rowHeight}px`;
    this.options.render(row, element, index);
  }

  private indexOfEvent(event: Event): number | undefined {
    const target = event.target instanceof Element ? event.target.closest<HTMLElement>('.virtual-row') : null;
    const text = target?.dataset['index'];
    return text === undefined ? undefined : Number(text);
  }

  private onClick(event: MouseEvent): void {
    const index = this.indexOfEvent(event);
    if (index === undefined) return;
    this.setActive(index, true);
    const row = this.rows[index];
    if (row !== undefined) this.options.onSelect?.(row, index);
  }

  private onKeyDown(event: KeyboardEvent): void {
    const row = this.rows[this.active];
    if (row === undefined) return;
    const page = Math.max(1, Math.floor(this.element.clientHeight / this.options.rowHeight) - 1);
    const moves: Readonly<Record<string, number>> = {
      ArrowDown: this.active + 1,
      ArrowUp: this.active - 1,
      PageDown: this.active + page,
      PageUp: this.active - page,
      Home: 0,
      End: this.rows.length - 1,
    };
    const target = moves[event.key];
    if (target !== undefined) {
      this.setActive(target, true);
    } else if (event.key === 'Enter' || event.key === ' ') {
      this.options.onSelect?.(row, this.active);
    } else if (!(this.options.onKey?.(event, row, this.active) ?? false)) {
      return;
    }
    event.preventDefault();
  }
}
