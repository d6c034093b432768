// The per-request context of the management schema: the service to call, the base URL that
// endpoints are reported under, and a cache so one request loads an app's detail once.

import { notFound } from '../errors/index.js';
import type { PortabilityPort } from './portabilityApi.js';
import type { AdminService, AppDetail, MailTester, TrafficSource } from './types.js';

export interface AdminContext {
  admin: AdminService;
  /** Base URL without a trailing slash, e.g. `https://api.example.com`. */
  publicUrl: string;
  /** Loads an app's detail (schema, history, tokens), once per request. */
  appDetail(id: string): Promise<AppDetail>;
  /** Apps' traffic, as the server recorded it. */
  traffic: TrafficSource;
  /** Apps' test mail. */
  mail: MailTester;
  /** Export URLs and forks. */
  portability: PortabilityPort;
}

export function createAdminContext(admin: AdminService, publicUrl: string, traffic: TrafficSource, mail: MailTester, portability: PortabilityPort): AdminContext {
  const details = new Map<string, Promise<AppDetail>>();
  return {
    admin,
    traffic,
    mail,
    portability,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    appDetail(id) {
      let detail = details.get(id);
      if (!detail) {
        detail = admin.getApp(id).then((found) => {
          if (!found) throw notFound(`No app with id "${id}"`);
          return found;
        });
        details.set(id, detail);
      }
      return detail;
    },
  };
}
