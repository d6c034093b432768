// A real SMTP server on an ephemeral port that keeps the mail it receives, for the tests of
// accounts by mail and of the console's mail pages (smtp-server and mailparser).
// With `auth`, it takes mail only after a login with that user and password.

import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export class Inbox {
  readonly mails: ParsedMail[] = [];
  readonly #server: SMTPServer;
  #waiters: (() => void)[] = [];
  port = 0;

  constructor(auth?: { user: string; pass: string }) {
    this.#server = new SMTPServer({
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      authOptional: !auth,
      logger: false,
      onAuth: (a, _session, callback) => {
        if (auth && a.username === auth.user && a.password === auth.pass) callback(null, { user: a.username });
        else callback(new Error('Invalid username or password'));
      },
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.mails.push(mail);
            for (const wake of this.#waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.server.address() as { port: number }).port;
    return this;
  }

  /** The server's SMTP URL, with `auth` ("user:password@") when given. */
  url(auth = ''): string {
    return `smtp://${auth}127.0.0.1:${this.port}`;
  }

  /** The mails sent to `to`. */
  to(to: string): ParsedMail[] {
    return this.mails.filter((m) => (Array.isArray(m.to) ? m.to : [m.to]).some((a) => a?.value.some((v) => v.address?.toLowerCase() === to.toLowerCase())));
  }

  /** Waits for the `n`th mail to `to`. */
  async next(to: string, n: number): Promise<ParsedMail> {
    const deadline = Date.now() + 5000;
    while (this.to(to).length < n) {
      if (Date.now() > deadline) throw new Error(`no mail ${n} to ${to}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.to(to)[n - 1] as ParsedMail;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** The code a verification or reset mail carries. */
export function codeIn(mail: ParsedMail): string {
  const match = /tmt_[A-Za-z0-9_-]{43}/.exec(mail.text ?? '');
  if (!match) throw new Error(`no code in ${mail.text}`);
  return match[0];
}
