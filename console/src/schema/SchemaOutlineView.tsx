// The live schema made readable: a diagram of the model types and their relations, and a card
// per type listing its fields, relations (with their kind and reverse field), enums and
// embedded types.

import { useMemo } from 'react';
import { describeSchema } from './describe';
import { DIAGRAM, layoutDiagram } from './diagramLayout';
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

/** Boxes on a grid, one per model type, and a line per relation routed around them (see diagramLayout.ts). */
function Diagram({ models }: { models: TypeOutline[] }) {
  const layout = useMemo(() => layoutDiagram(models), [models]);
  const describe = layout.edges.map((e) => e.description).join('; ');
  return (
    <figure className="diagram">
      <svg viewBox={`0 0 ${layout.width} ${layout.height}`} width={layout.width} role="img" aria-label={`Diagram of the model types. Relations: ${describe || 'none'}.`}>
        {layout.boxes.map((box) => (
          <g key={box.name} className="diagram-box" data-type={box.name}>
            <rect x={box.x} y={box.y} width={box.width} height={box.height} rx={6} />
            <text x={box.x + DIAGRAM.paddingX} y={box.titleBaseline} className="diagram-title">
              {box.name}
            </text>
            {box.fields.map((f) => (
              <text key={f.full} x={box.x + DIAGRAM.paddingX} y={f.baseline} className={f.relation ? 'diagram-field relation' : 'diagram-field'}>
                {f.text}
                {f.text !== f.full && <title>{f.full}</title>}
              </text>
            ))}
          </g>
        ))}
        {layout.edges.map((e) => {
          const first = e.points[0];
          const last = e.points[e.points.length - 1];
          return (
            <g key={e.relation} className="diagram-edge" data-relation={e.relation}>
              <title>{e.description}</title>
              <path className="diagram-link" d={e.points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x} ${p.y}`).join(' ')} />
              {first && <circle className="diagram-end" cx={first.x} cy={first.y} r={3} />}
              {last && <circle className="diagram-end" cx={last.x} cy={last.y} r={3} />}
            </g>
          );
        })}
        {layout.edges.map(({ relation, label }) => (
          <g key={relation} className="diagram-label-group">
            <rect className="diagram-label-bg" x={label.x} y={label.y} width={label.width} height={label.height} rx={3} />
            <text className="diagram-label" x={label.x + label.width / 2} y={label.y + label.height - 3.5} textAnchor="middle">
              {label.text}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
