// A modal dialog on the native <dialog> element: the browser keeps focus inside it and closes
// it on Escape; focus returns to whatever had it before the dialog opened.

import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';

export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    const previous = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => {
      dialog.close();
      previous?.focus();
    };
  }, [open]);
  if (!open) return null;
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  /** Keeps the confirm button disabled (e.g. until the app's name is typed). */
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      {props.children}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={props.onClose} disabled={props.busy}>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={props.onConfirm} disabled={props.busy || props.confirmDisabled}>
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
