// Where the schema diagram draws things. Boxes (one per model type) sit on a grid; the space
// between columns and between rows is kept free as channels, and every relation's line runs in
// those channels only: it leaves its field's row at the side of one box, travels along a
// vertical channel (and, between distant columns, a horizontal one) and enters the other box at
// the side of the reverse field's row. So a line never crosses a box, and never a field name.
// Each line gets a lane of its own in each channel it uses; labels sit in channels too.

import type { FieldOutline, RelationKind, TypeOutline } from './describe';

/** Sizes, in SVG units (px at full size). Text widths are estimated from the monospace font's advance. */
export const DIAGRAM = {
  headerHeight: 30,
  lineHeight: 18,
  paddingBottom: 8,
  paddingX: 10,
  /** Advance of one character of the 11 px monospace font of fields and labels (0.6 em, rounded up). */
  monoCharWidth: 7,
  /** Advance of one character of the 13 px bold title (proportional font; generous). */
  titleCharWidth: 9,
  minBoxWidth: 150,
  maxBoxWidth: 320,
  /** Space between neighbouring lines in a vertical channel, and in a horizontal one (which holds a label above each line). */
  lane: 10,
  hLane: 20,
  channelPadding: 14,
  minGapX: 110,
  minGapY: 56,
  labelHeight: 14,
  margin: 12,
} as const;

export interface DiagramField {
  /** The text drawn (cut with … when too long for the box). */
  text: string;
  /** The whole text, for a tooltip when it was cut. */
  full: string;
  relation: boolean;
  /** Baseline of the text. */
  baseline: number;
}

export interface DiagramBox {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  titleBaseline: number;
  fields: DiagramField[];
}

export interface DiagramEdge {
  relation: string;
  kind: RelationKind;
  /** The points of an orthogonal polyline, from one box's side to the other's. */
  points: { x: number; y: number }[];
  /** The label's box (its text is centred in it). */
  label: { text: string; x: number; y: number; width: number; height: number };
  description: string;
}

export interface DiagramLayout {
  width: number;
  height: number;
  boxes: DiagramBox[];
  edges: DiagramEdge[];
}

const SHORT: Record<RelationKind, string> = { 'one-to-one': '1 : 1', 'one-to-many': '1 : n', 'many-to-one': 'n : 1', 'many-to-many': 'n : n' };

function fieldText(f: FieldOutline): string {
  return `${f.name}: ${f.type}`;
}

function cut(text: string, room: number): string {
  const fits = Math.floor(room / DIAGRAM.monoCharWidth);
  return text.length > fits ? `${text.slice(0, Math.max(1, fits - 1))}…` : text;
}

/** One relation, once: from the first end met to the other end (the same field for a self relation that is its own reverse). */
interface Link {
  relation: string;
  kind: RelationKind;
  from: { model: number; field: number };
  to: { model: number; field: number | 'title' };
}

function linksOf(models: TypeOutline[]): Link[] {
  const index = new Map(models.map((m, i) => [m.name, i]));
  const seen = new Set<string>();
  const links: Link[] = [];
  models.forEach((m, mi) => {
    m.fields.forEach((f, fi) => {
      const relation = f.relation;
      if (!relation || seen.has(relation.name)) return;
      const target = index.get(relation.target);
      if (target === undefined) return;
      seen.add(relation.name);
      // The reverse field, when the schema declares one (`Post.author` for `User.posts`).
      const reverse = models[target]?.fields.findIndex((g, gi) => g.relation?.name === relation.name && !(target === mi && gi === fi)) ?? -1;
      links.push({ relation: relation.name, kind: relation.kind, from: { model: mi, field: fi }, to: { model: target, field: reverse >= 0 ? reverse : 'title' } });
    });
  });
  return links;
}

type Side = 'left' | 'right';

/** A route before it has coordinates: which channels it uses, in which lane. */
interface Route {
  link: Link;
  sideFrom: Side;
  sideTo: Side;
  /** Vertical channel next to the first box (k: between columns k-1 and k), and next to the second. */
  vFrom: { channel: number; lane: number };
  vTo: { channel: number; lane: number };
  /** Horizontal channel (r: between rows r-1 and r), when the columns are not neighbours. */
  h?: { channel: number; lane: number };
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

type Point = { x: number; y: number };

const clamp = (v: number, min: number, max: number) => Math.min(Math.max(v, min), Math.max(min, max));

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function segments(points: Point[]): [Point, Point][] {
  return points.slice(1).map((p, i) => [points[i] ?? p, p]);
}

/** Whether an axis-parallel segment touches a rectangle. */
function segmentMeets(a: Point, b: Point, r: Rect): boolean {
  return overlaps({ x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(a.x - b.x) + 0.01, h: Math.abs(a.y - b.y) + 0.01 }, r);
}

export function layoutDiagram(models: TypeOutline[]): DiagramLayout {
  const d = DIAGRAM;
  const columns = Math.min(models.length, Math.max(2, Math.ceil(Math.sqrt(models.length))));
  const rows = Math.ceil(models.length / columns);
  const cell = (i: number) => ({ col: i % columns, row: Math.floor(i / columns) });

  // Box width: the widest title or field line, within bounds (longer lines are cut).
  const wanted = models.map((m) =>
    Math.max(m.name.length * d.titleCharWidth, ...m.fields.map((f) => fieldText(f).length * d.monoCharWidth)) + 2 * d.paddingX + 4,
  );
  const boxWidth = Math.min(d.maxBoxWidth, Math.max(d.minBoxWidth, ...wanted));
  const heights = models.map((m) => d.headerHeight + Math.max(1, m.fields.length) * d.lineHeight + d.paddingBottom);

  // Routes in channel terms, lanes handed out in order of use.
  const vLanes = new Map<number, number>();
  const hLanes = new Map<number, number>();
  const take = (lanes: Map<number, number>, channel: number) => {
    const lane = lanes.get(channel) ?? 0;
    lanes.set(channel, lane + 1);
    return { channel, lane };
  };
  const routes: Route[] = linksOf(models).map((link) => {
    const a = cell(link.from.model);
    const b = cell(link.to.model);
    if (a.col === b.col) {
      // Same column (or the same box): out of the right sides, along the channel on the right.
      const v = take(vLanes, a.col + 1);
      return { link, sideFrom: 'right', sideTo: 'right', vFrom: v, vTo: v };
    }
    const rightward = a.col < b.col;
    const sideFrom: Side = rightward ? 'right' : 'left';
    const sideTo: Side = rightward ? 'left' : 'right';
    if (Math.abs(a.col - b.col) === 1) {
      const v = take(vLanes, Math.max(a.col, b.col));
      return { link, sideFrom, sideTo, vFrom: v, vTo: v };
    }
    const vFrom = take(vLanes, rightward ? a.col + 1 : a.col);
    const vTo = take(vLanes, rightward ? b.col : b.col + 1);
    const h = take(hLanes, a.row > b.row ? a.row : a.row + 1);
    return { link, sideFrom, sideTo, vFrom, vTo, h };
  });

  const labelText = (link: Link) => `${link.relation} (${SHORT[link.kind]})`;
  const labelWidth = (text: string) => text.length * d.monoCharWidth + 8;
  const widestLabel = Math.max(0, ...routes.map((r) => labelWidth(labelText(r.link))));
  const mostV = Math.max(0, ...vLanes.values());
  const mostH = Math.max(0, ...hLanes.values());
  const gapX = Math.max(d.minGapX, widestLabel + 2 * d.channelPadding, (mostV - 1) * d.lane + 2 * d.channelPadding);
  const gapY = Math.max(d.minGapY, d.labelHeight + 8 + (mostH - 1) * d.hLane + d.channelPadding);

  // Channel widths: margins stay small unless a route uses them.
  const vWidth = (k: number) => (k === 0 || k === columns ? (vLanes.has(k) ? gapX : d.margin) : gapX);
  const hHeight = (r: number) => (r === 0 || r === rows ? (hLanes.has(r) ? gapY : d.margin) : gapY);
  const colX: number[] = [];
  let x = 0;
  for (let c = 0; c < columns; c += 1) {
    x += vWidth(c);
    colX.push(x);
    x += boxWidth;
  }
  const width = x + vWidth(columns);
  const rowHeights = Array.from({ length: rows }, (_, r) => Math.max(...heights.slice(r * columns, r * columns + columns)));
  const rowY: number[] = [];
  let y = 0;
  for (let r = 0; r < rows; r += 1) {
    y += hHeight(r);
    rowY.push(y);
    y += rowHeights[r] ?? 0;
  }
  const height = y + hHeight(rows);

  /** Left edge of vertical channel k, top of horizontal channel r. */
  const vStart = (k: number) => (k === 0 ? 0 : (colX[k - 1] ?? 0) + boxWidth);
  const hStart = (r: number) => (r === 0 ? 0 : (rowY[r - 1] ?? 0) + (rowHeights[r - 1] ?? 0));
  const laneX = (v: { channel: number; lane: number }) => vStart(v.channel) + d.channelPadding + v.lane * d.lane;
  const laneY = (h: { channel: number; lane: number }) => hStart(h.channel) + d.labelHeight + 8 + h.lane * d.hLane;

  const boxes: DiagramBox[] = models.map((m, i) => {
    const { col, row } = cell(i);
    const bx = colX[col] ?? 0;
    const by = rowY[row] ?? 0;
    return {
      name: m.name,
      x: bx,
      y: by,
      width: boxWidth,
      height: heights[i] ?? 0,
      titleBaseline: by + 21,
      fields: m.fields.map((f, fi) => {
        const full = fieldText(f);
        return { text: cut(full, boxWidth - 2 * d.paddingX), full, relation: f.relation !== undefined, baseline: by + d.headerHeight + fi * d.lineHeight + 13 };
      }),
    };
  });

  /** Where a line meets a box: the side, at the middle of the field's row (or of the title). */
  const anchor = (model: number, field: number | 'title', side: Side) => {
    const box = boxes[model];
    if (!box) return { x: 0, y: 0 };
    const yMid = field === 'title' ? box.y + d.headerHeight / 2 : box.y + d.headerHeight + field * d.lineHeight + d.lineHeight / 2;
    return { x: side === 'left' ? box.x : box.x + box.width, y: yMid };
  };

  const lines = routes.map((route) => {
    const { link } = route;
    const start = anchor(link.from.model, link.from.field, route.sideFrom);
    // A self relation that is its own reverse (`friends`) loops from its field back to the box's title.
    const end = anchor(link.to.model, link.to.field, route.sideTo);
    const x1 = laneX(route.vFrom);
    const x2 = laneX(route.vTo);
    const points = route.h
      ? [start, { x: x1, y: start.y }, { x: x1, y: laneY(route.h) }, { x: x2, y: laneY(route.h) }, { x: x2, y: end.y }, end]
      : [start, { x: x1, y: start.y }, { x: x1, y: end.y }, end];
    return { route, points };
  });

  // Labels go in channels too: on the stretch along a horizontal channel, or beside the line in
  // its vertical channel. Of the places along that stretch, the one crossing the fewest other
  // lines and overlapping no other label wins.
  const placed: Rect[] = [];
  const edges: DiagramEdge[] = lines.map(({ route, points }, index) => {
    const { link } = route;
    const text = labelText(link);
    const w = labelWidth(text);
    const h = d.labelHeight;
    // Places to try, each with its distance from the ideal one (the middle of the stretch, beside the line).
    const candidates: { rect: Rect; distance: number }[] = [];
    const [first, second, third] = [points[1], points[2], points[3]];
    if (route.h && second && third) {
      const y0 = second.y - h - 2;
      const mid = (second.x + third.x) / 2 - w / 2;
      for (let k = 0; k < 60; k += 1) {
        const n = Math.ceil(k / 2) * (k % 2 === 1 ? 1 : -1);
        candidates.push({ rect: { x: clamp(mid + n * (w / 3), 0, width - w), y: y0, w, h }, distance: Math.abs(n) });
      }
    } else if (first && second) {
      const channel = route.vFrom.channel;
      const [low, high] = [vStart(channel) + 2, vStart(channel) + vWidth(channel) - w - 2];
      const mid = (first.y + second.y) / 2 - h / 2;
      for (let k = 0; k < 80; k += 1) {
        const n = Math.ceil(k / 2) * (k % 2 === 1 ? 1 : -1);
        const y = clamp(mid + n * (h / 2 + 1), 0, height - h);
        // Right of the line, left of it, or across it.
        [first.x + 5, first.x - 5 - w, first.x - w / 2].forEach((x, side) => candidates.push({ rect: { x: clamp(x, low, high), y, w, h }, distance: Math.abs(n) + side * 0.5 }));
      }
    }
    const own = segments(points);
    const others = lines.filter((_, i) => i !== index).flatMap((l) => segments(l.points));
    const crossing = (rect: Rect, list: [Point, Point][]) => list.filter(([a, b]) => segmentMeets(a, b, rect)).length;
    let best: Rect | undefined;
    let bestScore = Infinity;
    for (const { rect, distance } of candidates) {
      if (placed.some((p) => overlaps(rect, p))) continue;
      const score = crossing(rect, others) * 10 + crossing(rect, own) * 4 + distance;
      if (score < bestScore) {
        best = rect;
        bestScore = score;
      }
    }
    const rect = best ?? candidates[0]?.rect ?? { x: 0, y: 0, w, h };
    placed.push(rect);
    const fromName = models[link.from.model]?.name ?? '';
    const toName = models[link.to.model]?.name ?? '';
    return {
      relation: link.relation,
      kind: link.kind,
      points,
      label: { text, x: rect.x, y: rect.y, width: w, height: h },
      description: `${fromName} to ${toName}: ${link.relation} (${SHORT[link.kind]})`,
    };
  });

  return { width, height, boxes, edges };
}
