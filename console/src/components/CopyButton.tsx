// Copies a value to the clipboard and says so; falls back to selecting the text when the
// clipboard is not available (plain http on another host).

import { useState } from 'react';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" className="button small" onClick={copy} aria-label={label}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}
    </button>
  );
}

/** A read-only value with a copy button, e.g. an endpoint URL. */
export function CopyField({ value, label }: { value: string; label: string }) {
  return (
    <span className="copy-field">
      <input readOnly value={value} aria-label={label} onFocus={(e) => e.currentTarget.select()} />
      <CopyButton value={value} label={`Copy ${label}`} />
    </span>
  );
}
