// SVG built like dom.ts builds HTML: elements made with createElementNS, attributes set one by
// one and text only as textContent, so nothing read from a session can become markup.
export const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

type SvgChild = SVGElement | null | undefined | false;

export function svg<Tag extends keyof SVGElementTagNameMap>(
  tag: Tag,
  attributes: Readonly<Record<string, string | number | undefined>> = {},
  children: readonly SvgChild[] = [],
): SVGElementTagNameMap[Tag] {
  const created = document.createElementNS(SVG_NAMESPACE, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) created.setAttribute(name, String(value));
  }
  for (const child of children) if (child) created.append(child);
  return created;
}

/** A `<text>` whose content is `content`, as text. */
export function svgText(
  content: string,
  attributes: Readonly<Record<string, string | number | undefined>> = {},
): SVGTextElement {
  const text = svg('text', attributes);
  text.textContent = content;
  return text;
}

/** A `<title>` (the tooltip of its parent), as text. */
export function svgTitle(content: string): SVGTitleElement {
  const title = svg('title');
  title.textContent = content;
  return title;
}

/** A chart's horizontal grid: a line and a label (at the left) at each tick. */
export function horizontalGrid(
  ticks: readonly number[],
  y: (value: number) => number,
  left: number,
  right: number,
  label: (value: number) => string,
): SVGGElement[] {
  return ticks.map((tick) =>
    svg('g', { class: 'chart-tick' }, [
      svg('line', { x1: left, x2: right, y1: y(tick), y2: y(tick), class: 'chart-grid' }),
      svgText(label(tick), { x: left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'chart-label' }),
    ]),
  );
}
