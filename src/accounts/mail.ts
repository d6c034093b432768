// Mail to an app's users, through a real SMTP connection (nodemailer): where it goes out and
// who sends it come from the app's settings, else from the server's (TESSERA_SMTP_URL,
// TESSERA_MAIL_FROM). Texts are the app's templates or the built-in ones, with {{token}},
// {{username}} and {{appName}} replaced. Nothing here logs a token. nodemailer is loaded with
// the first mail: a server whose apps send none never loads it.

import type { Transporter } from 'nodemailer';
import type { AppSettings } from '../model/index.js';

/** The server's own mail settings, used by apps that set none. */
export interface MailDefaults {
  smtpUrl?: string | undefined;
  from?: string | undefined;
}

export type MailKind = 'verifyEmail' | 'resetPassword';

const BUILT_IN: Readonly<Record<MailKind, { subject: string; text: string }>> = {
  verifyEmail: {
    subject: 'Confirm your address for {{appName}}',
    text: 'Hello {{username}},\n\nto confirm this address for {{appName}}, use this code within 24 hours:\n\n{{token}}\n\nIf you did not ask for it, ignore this mail.\n',
  },
  resetPassword: {
    subject: 'Reset your {{appName}} password',
    text: 'Hello {{username}},\n\nto choose a new password for {{appName}}, use this code within an hour:\n\n{{token}}\n\nIf you did not ask for it, ignore this mail: your password stays as it is.\n',
  },
};

/** A template with its placeholders filled in (each placeholder, every time it appears). */
export function fillTemplate(template: string, values: Readonly<Record<'token' | 'username' | 'appName', string>>): string {
  return template.replace(/\{\{(token|username|appName)\}\}/g, (_match, name: 'token' | 'username' | 'appName') => values[name]);
}

export interface Mail {
  to: string;
  kind: MailKind;
  token: string;
  username: string;
  appName: string;
}

/** Sends the app's mail; one SMTP transport per distinct URL, reused. */
export class Mailer {
  readonly #defaults: MailDefaults;
  readonly #transports = new Map<string, Transporter>();

  constructor(defaults: MailDefaults = {}) {
    this.#defaults = defaults;
  }

  /** Whether an app with these settings can send mail at all. */
  configured(settings: AppSettings): boolean {
    return (settings.smtpUrl ?? this.#defaults.smtpUrl) !== undefined && (settings.mailFrom ?? this.#defaults.from) !== undefined;
  }

  /** A mail that says the app's mail settings work. */
  async sendTest(settings: AppSettings, to: string, appName: string): Promise<void> {
    const { url, from } = this.#route(settings);
    await (await this.#transport(url)).sendMail({
      from,
      to,
      subject: `Test mail from ${appName}`,
      text: `This mail was sent through the mail settings of the app ${appName}: they work.\n`,
    });
  }

  #route(settings: AppSettings): { url: string; from: string } {
    const url = settings.smtpUrl ?? this.#defaults.smtpUrl;
    const from = settings.mailFrom ?? this.#defaults.from;
    if (url === undefined || from === undefined) throw new Error('the app has no mail settings (smtpUrl and mailFrom, or TESSERA_SMTP_URL and TESSERA_MAIL_FROM)');
    return { url, from };
  }

  async send(settings: AppSettings, mail: Mail): Promise<void> {
    const { url, from } = this.#route(settings);
    const subject = (mail.kind === 'verifyEmail' ? settings.verifyEmailSubject : settings.resetPasswordSubject) ?? BUILT_IN[mail.kind].subject;
    const text = (mail.kind === 'verifyEmail' ? settings.verifyEmailText : settings.resetPasswordText) ?? BUILT_IN[mail.kind].text;
    const values = { token: mail.token, username: mail.username, appName: mail.appName };
    // The subject gets no token: subjects show in notifications and lists.
    await (await this.#transport(url)).sendMail({ from, to: mail.to, subject: fillTemplate(subject, { ...values, token: '' }).trim(), text: fillTemplate(text, values) });
  }

  async #transport(url: string): Promise<Transporter> {
    let transport = this.#transports.get(url);
    if (!transport) {
      const { createTransport } = await import('nodemailer');
      // Looked up again: another mail may have made it while the module loaded.
      transport = this.#transports.get(url);
      if (transport) return transport;
      if (this.#transports.size >= 1000) this.#close();
      transport = createTransport(url);
      this.#transports.set(url, transport);
    }
    return transport;
  }

  #close(): void {
    for (const transport of this.#transports.values()) transport.close();
    this.#transports.clear();
  }

  close(): void {
    this.#close();
  }
}
