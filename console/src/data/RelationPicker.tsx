// Choosing the target of a singular relation: a combobox that searches the related type's
// objects on the server as you type (their text fields, `like`) and pages through the matches,
// so any object can be linked however many there are. Keyboard: arrows move through the
// options (and load more at the end), Enter chooses, Escape closes the list.

import { useEffect, useId, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { ErrorBox } from '../components/ErrorBox';
import type { ModelInfo } from './model';
import { searchChoices } from './rows';
import type { Choice, ChoicePage } from './rows';
import { searchWhere, searchableFields } from './search';

const PAGE_SIZE = 20;
const SEARCH_DELAY_MS = 250;

export function RelationPicker(props: {
  id: string;
  /** The relation field's name, for the clear button's label. */
  name: string;
  target: ModelInfo;
  endpoint: string;
  token: string | null;
  /** The chosen object's id, '' for none. */
  value: string;
  /** The chosen object's label when the form opened, if it had one. */
  initialLabel?: string | undefined;
  required: boolean;
  describedBy?: string | undefined;
  onChange: (id: string) => void;
}) {
  const { id, target, value, onChange } = props;
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const container = useRef<HTMLDivElement>(null);
  const [chosen, setChosen] = useState<Choice | null>(value ? { id: value, label: props.initialLabel ?? '' } : null);
  const [text, setText] = useState(textOf(chosen));
  const [open, setOpen] = useState(false);
  const [term, setTerm] = useState('');
  const [results, setResults] = useState<ChoicePage | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [active, setActive] = useState(-1);
  const request = useRef(0);
  /** The search the results answer, which "more results" continues. */
  const searched = useRef('');
  const searchable = searchableFields(target);

  const load = async (forTerm: string, after: string | null) => {
    const id = ++request.current;
    searched.current = forTerm;
    setLoading(true);
    setError(null);
    try {
      const page = await searchChoices(props.endpoint, props.token, target, { where: searchWhere(target, forTerm, searchable), first: PAGE_SIZE, after });
      if (id !== request.current) return;
      setResults((previous) => (after && previous ? { ...page, choices: [...previous.choices, ...page.choices] } : page));
      if (!after) setActive(page.choices.length > 0 ? 0 : -1);
    } catch (err) {
      if (id === request.current) setError(err);
    } finally {
      if (id === request.current) setLoading(false);
    }
  };

  // The first page of matches, a moment after the search text stops changing.
  useEffect(() => {
    if (!open) return;
    const timer = window.setTimeout(() => void load(term, null), results ? SEARCH_DELAY_MS : 0);
    return () => window.clearTimeout(timer);
    // Only a new search (or opening the list) loads the first page again.
  }, [open, term]);

  useEffect(() => {
    if (open && active >= 0) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [open, active, listId]);

  // The form cannot be sent without a choice when the relation is required.
  useEffect(() => {
    input.current?.setCustomValidity(props.required && value === '' ? `Choose a ${target.name}` : '');
  }, [props.required, value, target.name]);

  const choose = (choice: Choice) => {
    setChosen(choice);
    setText(textOf(choice));
    setOpen(false);
    onChange(choice.id);
  };

  const clear = () => {
    setChosen(null);
    setText('');
    setTerm('');
    onChange('');
    input.current?.focus();
  };

  const close = () => {
    setOpen(false);
    setText(textOf(chosen));
  };

  const more = () => {
    if (results?.hasNextPage && !loading) void load(searched.current, results.endCursor);
  };

  const choices = results?.choices ?? [];
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!open) {
          setOpen(true);
          break;
        }
        if (active >= choices.length - 1) more();
        setActive((a) => Math.min(a + 1, choices.length - 1));
        break;
      case 'ArrowUp':
        event.preventDefault();
        setActive((a) => Math.max(a - 1, 0));
        break;
      case 'Enter':
        if (!open) break;
        event.preventDefault();
        if (choices[active]) choose(choices[active]);
        break;
      case 'Escape':
        if (!open) break;
        // Closes the list, not the dialog the form is in.
        event.preventDefault();
        event.stopPropagation();
        close();
        break;
      default:
        break;
    }
  };

  const activeId = open && active >= 0 && choices[active] ? `${listId}-${active}` : undefined;
  return (
    <div
      className="picker"
      ref={container}
      onBlur={(event) => {
        if (!container.current?.contains(event.relatedTarget as Node | null)) close();
      }}
    >
      <div className="picker-input">
        <input
          ref={input}
          id={id}
          type="text"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-describedby={props.describedBy}
          autoComplete="off"
          spellCheck={false}
          placeholder={searchable.length > 0 ? `Search ${target.name} by ${searchable.join(', ')}` : `Browse ${target.name} objects`}
          value={text}
          onFocus={(e) => e.currentTarget.select()}
          onClick={() => setOpen(true)}
          onChange={(e) => {
            setText(e.target.value);
            setTerm(e.target.value);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
        />
        {chosen && (
          <button type="button" className="button small" onClick={clear} aria-label={`Clear ${props.name}`}>
            Clear
          </button>
        )}
      </div>
      {chosen && !open && (
        <p className="hint picker-chosen">
          Id <code>{chosen.id}</code>
        </p>
      )}
      {open && (
        <div className="picker-popup">
          <ul id={listId} role="listbox" aria-label={`${target.name} objects`} className="picker-list">
            {choices.map((c, i) => (
              <li
                key={c.id}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                className={i === active ? 'active' : undefined}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(c)}
              >
                <span>{c.label || c.id}</span> <code className="id">…{c.id.slice(-8)}</code>
              </li>
            ))}
          </ul>
          <div className="picker-foot">
            <span role="status" aria-live="polite">
              {loading ? 'Searching…' : results ? countText(results, target.name, term) : ''}
            </span>
            {results?.hasNextPage && (
              <button type="button" className="button small" onMouseDown={(e) => e.preventDefault()} onClick={more} disabled={loading}>
                More results
              </button>
            )}
          </div>
          <ErrorBox error={error} title={`Could not search the ${target.name} objects`} />
        </div>
      )}
    </div>
  );
}

function textOf(choice: Choice | null): string {
  return choice ? choice.label || choice.id : '';
}

function countText(page: ChoicePage, type: string, term: string): string {
  const shown = page.choices.length;
  if (shown === 0) return term.trim() ? `No ${type} matches “${term.trim()}”` : `No ${type} objects yet`;
  const total = page.count ?? shown;
  const what = term.trim() ? (total === 1 ? 'match' : 'matches') : `${type} object${total === 1 ? '' : 's'}`;
  return shown === total ? `${total} ${what}` : `${shown} of ${total} ${what}`;
}
