// The SDL editor: Monaco with GraphQL highlighting, and the schema's problems (from
// SCHEMA_INVALID) as error markers at their line and column.

import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { useColorScheme } from '../components/colorScheme';
import { SDL_LANGUAGE, monaco } from './monaco';

export interface SchemaProblem {
  message: string;
  line: number;
  column: number;
}

export interface SdlEditorHandle {
  /** Moves the cursor to a position and focuses the editor. */
  goTo(line: number, column: number): void;
}

interface Props {
  value: string;
  onChange: (value: string) => void;
  problems: readonly SchemaProblem[];
  label: string;
  /** Called on Ctrl/Cmd+Enter. */
  onSubmit?: () => void;
}

export const SdlEditor = forwardRef<SdlEditorHandle, Props>(function SdlEditor({ value, onChange, problems, label, onSubmit }, ref) {
  const container = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const callbacks = useRef({ onChange, onSubmit });
  callbacks.current = { onChange, onSubmit };
  const scheme = useColorScheme();

  // Monaco's theme is global: the explorer's GraphiQL sets its own, so this page sets it again.
  useEffect(() => monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs'), [scheme]);

  useEffect(() => {
    if (!container.current) return;
    const model = monaco.editor.createModel(value, SDL_LANGUAGE);
    const instance = monaco.editor.create(container.current, {
      model,
      ariaLabel: label,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 14,
      tabSize: 2,
      wordWrap: 'on',
      fixedOverflowWidgets: true,
      renderValidationDecorations: 'on',
    });
    editor.current = instance;
    const changes = model.onDidChangeContent(() => callbacks.current.onChange(model.getValue()));
    instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => callbacks.current.onSubmit?.());
    return () => {
      changes.dispose();
      instance.dispose();
      model.dispose();
      editor.current = null;
    };
    // The editor is created once; later values arrive through the effect below.
  }, []);

  // A value set from outside (reset to the live schema) replaces the text.
  useEffect(() => {
    const model = editor.current?.getModel();
    if (model && model.getValue() !== value) model.setValue(value);
  }, [value]);

  useEffect(() => {
    const model = editor.current?.getModel();
    if (!model) return;
    const markers = problems.map((p) => {
      const line = Math.min(Math.max(p.line, 1), model.getLineCount());
      const column = Math.min(Math.max(p.column, 1), model.getLineMaxColumn(line));
      const word = model.getWordAtPosition({ lineNumber: line, column });
      const end = word && word.endColumn > column ? word.endColumn : Math.min(column + 1, model.getLineMaxColumn(line));
      return {
        severity: monaco.MarkerSeverity.Error,
        message: p.message,
        startLineNumber: line,
        startColumn: column,
        endLineNumber: line,
        endColumn: end === column ? column + 1 : end,
        source: 'Tessera',
      };
    });
    monaco.editor.setModelMarkers(model, 'tessera', markers);
  }, [problems]);

  useImperativeHandle(ref, () => ({
    goTo(line, column) {
      const instance = editor.current;
      if (!instance) return;
      instance.setPosition({ lineNumber: line, column });
      instance.revealLineInCenter(line);
      instance.focus();
    },
  }));

  return <div ref={container} className="sdl-editor" data-testid="sdl-editor" />;
});
