// The live schema made readable: a diagram of the model types and their relations, and a card
// per type listing its fields, relations (with their kind and reverse field), enums and
// embedded types.

import { useMemo } from 'react';
import { describeSchema } from './describe';
import type { FieldOutline, SchemaOutline, TypeOutline } from './describe';

export function SchemaOutlineView({ sdl, version }: { sdl: string; version: number }) {
  const outline = useMemo((): SchemaOutline | Error => {
    try {
      return describeSchema(sdl);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }, [sdl]);
  return (
    <section aria-labelledby="outline-title" className="card">
      <h2 id="outline-title">Types and relations (live version {version})</h2>
      {outline instanceof Error ? (
        <p className="error-box">The live schema could not be read: {outline.message}</p>
      ) : outline.models.length === 0 ? (
        <p className="empty">No model types yet. Add one, e.g. <code>type Note @model {'{ text: String }'}</code>.</p>
      ) : (
        <>
          <Diagram models={outline.models} />
          <div className="type-grid">
            {outline.models.map((t) => (
              <TypeCard key={t.name} type={t} kind="model" />
            ))}
            {outline.joins.map((j) => (
              <TypeCard key={j.name} type={{ name: j.name, fields: j.fields, rules: 0 }} kind={`join of ${j.relation}`} />
            ))}
            {outline.embedded.map((t) => (
              <TypeCard key={t.name} type={t} kind="embedded" />
            ))}
            {outline.enums.map((e) => (
              <article key={e.name} className="type-card" aria-labelledby={`type-${e.name}`}>
                <h3 id={`type-${e.name}`}>
                  {e.name} <span className="badge">enum</span>
                </h3>
                <p className="enum-values">{e.values.join(' · ')}</p>
              </article>
            ))}
          </div>
        </>
      )}
    </section>
  );
}

function TypeCard({ type, kind }: { type: TypeOutline; kind: string }) {
  return (
    <article className="type-card" aria-labelledby={`type-${type.name}`}>
      <h3 id={`type-${type.name}`}>
        {type.name} <span className="badge">{kind}</span>
        {type.rules > 0 && <span className="badge subtle">{type.rules} rule{type.rules === 1 ? '' : 's'}</span>}
      </h3>
      <ul className="field-list">
        {type.fields.map((f) => (
          <FieldLine key={f.name} field={f} />
        ))}
      </ul>
    </article>
  );
}

function FieldLine({ field }: { field: FieldOutline }) {
  return (
    <li>
      <span className="field-name">{field.name}</span>: <span className="field-type">{field.type}</span>
      {field.relation && (
        <span className="relation">
          {' '}
          → <a href={`#type-${field.relation.target}`}>{field.relation.target}</a>, {field.relation.kind}
          {field.relation.reverse && <> (reverse: {field.relation.reverse})</>}
        </span>
      )}
      {field.notes.length > 0 && <span className="field-notes"> {field.notes.join(' ')}</span>}
    </li>
  );
}

const BOX_W = 180;
const GAP_X = 150;
const GAP_Y = 70;
const LINE_H = 18;

const SHORT: Record<string, string> = { 'one-to-one': '1 : 1', 'one-to-many': '1 : n', 'many-to-one': 'n : 1', 'many-to-many': 'n : n' };

/** Boxes on a grid, one per model type, with a line per relation labelled with its kind. */
function Diagram({ models }: { models: TypeOutline[] }) {
  const columns = Math.min(models.length, Math.max(2, Math.ceil(Math.sqrt(models.length))));
  const heights = models.map((m) => 34 + Math.max(1, m.fields.length) * LINE_H);
  const rows = Math.ceil(models.length / columns);
  const rowHeights = Array.from({ length: rows }, (_, r) => Math.max(...heights.slice(r * columns, r * columns + columns)));
  const rowTops = rowHeights.map((_, r) => rowHeights.slice(0, r).reduce((sum, h) => sum + h + GAP_Y, 10));
  const boxes = new Map(
    models.map((m, i) => {
      const col = i % columns;
      const row = Math.floor(i / columns);
      return [m.name, { x: 10 + col * (BOX_W + GAP_X), y: rowTops[row] ?? 10, h: heights[i] ?? 40, model: m }];
    }),
  );
  const width = 20 + columns * BOX_W + (columns - 1) * GAP_X;
  const height = (rowTops[rows - 1] ?? 10) + (rowHeights[rows - 1] ?? 40) + 10;
  // One line per relation name (both ends describe the same relation).
  const seen = new Set<string>();
  const links = models.flatMap((m) =>
    m.fields.flatMap((f) => {
      if (!f.relation || seen.has(f.relation.name)) return [];
      seen.add(f.relation.name);
      const from = boxes.get(m.name);
      const to = boxes.get(f.relation.target);
      if (!from || !to) return [];
      return [{ from, to, label: `${f.relation.name} (${SHORT[f.relation.kind] ?? f.relation.kind})`, self: from === to }];
    }),
  );
  const describe = links.map((l) => `${l.from.model.name} to ${l.to.model.name}: ${l.label}`).join('; ');
  return (
    <figure className="diagram">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} role="img" aria-label={`Diagram of the model types. Relations: ${describe || 'none'}.`}>
        {links.map((l, i) => {
          if (l.self) {
            const x = l.from.x + BOX_W;
            const y = l.from.y + 20;
            return <path key={i} className="diagram-link" d={`M ${x} ${y} c 40 0 40 30 0 30`} fill="none" />;
          }
          return <line key={i} className="diagram-link" x1={l.from.x + BOX_W / 2} y1={l.from.y + l.from.h / 2} x2={l.to.x + BOX_W / 2} y2={l.to.y + l.to.h / 2} />;
        })}
        {[...boxes.values()].map(({ x, y, h, model }) => (
          <g key={model.name} className="diagram-box">
            <rect x={x} y={y} width={BOX_W} height={h} rx={6} />
            <text x={x + 10} y={y + 22} className="diagram-title">
              {model.name}
            </text>
            {model.fields.map((f, i) => (
              <text key={f.name} x={x + 10} y={y + 42 + i * LINE_H} className={f.relation ? 'diagram-field relation' : 'diagram-field'}>
                {f.name}: {f.type}
              </text>
            ))}
          </g>
        ))}
        {links.map((l, i) => {
          if (l.self) {
            return (
              <text key={i} className="diagram-label" x={l.from.x + BOX_W + 34} y={l.from.y + 38}>
                {l.label}
              </text>
            );
          }
          // Between the two boxes' facing edges, so the label does not sit on either box.
          const ax = l.from.x + BOX_W / 2;
          const ay = l.from.y + l.from.h / 2;
          const bx = l.to.x + BOX_W / 2;
          const by = l.to.y + l.to.h / 2;
          return (
            <text key={i} className="diagram-label" x={(ax + bx) / 2} y={(ay + by) / 2 - 4} textAnchor="middle">
              {l.label}
            </text>
          );
        })}
      </svg>
    </figure>
  );
}
