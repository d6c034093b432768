// A setting as the settings form holds it while it is edited, and the value sent for it. The
// server decides what is valid; the form only turns text into the setting's kind, and catches
// the one mistake the server cannot see: an SMTP URL changed around its hidden password.

import { ApiError } from '../api/graphql';
import type { SettingInfo, SettingValue } from '../api/settings';

/** A setting as its control holds it: text for numbers, texts and lists, whether null is chosen. */
export interface Draft {
  text: string;
  /** For a nullable setting: null, i.e. the default (the server's, or the built-in one). */
  none: boolean;
}

export const EMPTY_DRAFT: Draft = { text: '', none: true };

export function draftOf(value: SettingValue | undefined): Draft {
  if (value === null || value === undefined) return { text: '', none: true };
  if (Array.isArray(value)) return { text: value.join('\n'), none: false };
  return { text: String(value), none: false };
}

/** The value to send for a control's text. Text that is not a number goes as it is: the server says what is wrong with it. */
export function valueOf(info: SettingInfo, draft: Draft): SettingValue {
  if (info.nullable && draft.none) return null;
  switch (info.kind) {
    case 'integer':
    case 'number': {
      const text = draft.text.trim();
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    }
    case 'boolean':
      return draft.text === 'true';
    case 'list':
      return draft.text
        .split(/[\n,]/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
    case 'text':
      return draft.text;
    default: {
      const never: never = info.kind;
      return never;
    }
  }
}

export const sameValue = (a: SettingValue | undefined, b: SettingValue | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What the management API shows in place of an SMTP URL's password. */
export const HIDDEN_PASSWORD = '********';

/**
 * Refuses an SMTP URL that still holds the hidden password but is not the URL read back: the
 * server keeps the stored password only for the URL exactly as it showed it, and would otherwise
 * store the eight asterisks as the password.
 */
export function hiddenPasswordProblem(setting: string, value: SettingValue, saved: SettingValue | undefined): ApiError | undefined {
  if (typeof value !== 'string' || value === saved) return undefined;
  let password: string;
  try {
    password = decodeURIComponent(new URL(value).password);
  } catch {
    return undefined;
  }
  if (password !== HIDDEN_PASSWORD) return undefined;
  const message = `The password is hidden as ${HIDDEN_PASSWORD}: it is kept only when the URL is saved as it was shown. Type the password again to change the rest of the URL.`;
  return new ApiError([{ message, extensions: { code: 'BAD_USER_INPUT', setting } }], 0);
}
