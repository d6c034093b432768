// The management service over every cluster: each call about an app goes to the service of the
// store the app lives on; creating an app places it (the cluster asked for, or the one holding
// the fewest apps) and records the placement in the catalog, where names are unique across
// clusters; listing gathers every cluster's apps.

import { notFound } from '../errors/index.js';
import { Clusters, MAIN_CLUSTER, deletePlacement, deleteTraffic, findPlacement, insertPlacement, perStore } from '../store/index.js';
import type { Store } from '../store/index.js';
import { moveApp } from './moveApp.js';
import { storePortability } from './portability.js';
import type { Portability, PortabilityOptions } from './portability.js';
import { storeAdminService } from './service.js';
import type { AdminServiceOptions } from './service.js';
import type { AdminService, AppSummary, StoreAdminService } from './types.js';

/**
 * The management service of the apps on `target`: one store (every app on it), or the clusters
 * of a server (main and those the operator added).
 */
export function createAdminService(target: Store | Clusters, options: AdminServiceOptions = {}): AdminService {
  const clusters = target instanceof Clusters ? target : new Clusters(target);
  const serviceOf = perStore((store) => storeAdminService(store, options));
  const homeOf = async (appId: string) => {
    const home = await clusters.home(appId);
    return { cluster: home.cluster, service: serviceOf(home.store) };
  };
  const placed = <S extends AppSummary>(summary: S, cluster: string): S => ({ ...summary, cluster });
  /** A call about one app, by its input's appId. */
  const byInput =
    <A extends { appId: string }, R>(call: (service: StoreAdminService, input: A) => Promise<R>) =>
    async (input: A): Promise<R> =>
      call((await homeOf(input.appId)).service, input);

  return {
    async createApp({ name, schema, cluster }) {
      const target = cluster ?? (clusters.supported ? await clusters.leastLoaded() : MAIN_CLUSTER);
      const home = await clusters.cluster(target);
      if (!home) throw notFound(`No cluster named "${target}"`);
      const service = serviceOf(home.store);
      const created = await service.createApp({ name, schema });
      await place(clusters, home.store, created, home.cluster);
      return placed(created, home.cluster);
    },

    async addCluster({ name, url }) {
      return clusters.add(name, url);
    },

    async clusters() {
      return clusters.list();
    },

    async moveApp(input) {
      const moved = await moveApp(clusters, input);
      const target = await clusters.cluster(moved.to);
      const app = target && (await serviceOf(target.store).getApp(moved.appId));
      if (!app) throw notFound(`No app with id or name "${input.appId}"`);
      return placed(app, moved.to);
    },

    async migrateSchema(input) {
      return (await homeOf(input.appId)).service.migrateSchema(input);
    },

    async updateApp(input) {
      const { cluster, service } = await homeOf(input.appId);
      return placed(await service.updateApp(input), cluster);
    },

    async deleteApp(input) {
      const placement = await findPlacement(clusters.main, input.appId);
      const { service } = await homeOf(input.appId);
      const deleted = await service.deleteApp(input);
      if (placement) {
        await deletePlacement(clusters.main, placement.appId);
        await deleteTraffic(clusters.main, placement.appId);
      }
      return deleted;
    },

    createAdminToken: byInput((service, input) => service.createAdminToken(input)),
    revokeAdminToken: byInput((service, input) => service.revokeAdminToken(input)),
    rotateSigningKey: byInput((service, input) => service.rotateSigningKey(input)),
    setTrustedDocuments: byInput((service, input) => service.setTrustedDocuments(input)),
    addOidcProvider: byInput((service, input) => service.addOidcProvider(input)),
    removeOidcProvider: byInput((service, input) => service.removeOidcProvider(input)),
    createFunction: byInput((service, input) => service.createFunction(input)),
    updateFunction: byInput((service, input) => service.updateFunction(input)),
    deleteFunction: byInput((service, input) => service.deleteFunction(input)),
    redeliver: byInput((service, input) => service.redeliver(input)),

    async trustedDocuments(appId) {
      return (await homeOf(appId)).service.trustedDocuments(appId);
    },
    async oidcProviders(appId) {
      return (await homeOf(appId)).service.oidcProviders(appId);
    },
    async functions(appId) {
      return (await homeOf(appId)).service.functions(appId);
    },
    async functionDeliveries(appId, name, first, status) {
      return (await homeOf(appId)).service.functionDeliveries(appId, name, first, status);
    },
    async twoFactor(appId, userIds) {
      return (await homeOf(appId)).service.twoFactor(appId, userIds);
    },
    async apiSchema(idOrName) {
      return (await homeOf(idOrName)).service.apiSchema(idOrName);
    },

    async getApp(idOrName) {
      const { cluster, service } = await homeOf(idOrName);
      const app = await service.getApp(idOrName);
      return app && placed(app, cluster);
    },

    async listApps() {
      // An added cluster that does not answer lists nothing (`clusters` shows it unreachable);
      // the catalog's own failure fails the listing.
      const lists = await Promise.all(
        (await clusters.all()).map(async (home) => {
          const apps = home.cluster === MAIN_CLUSTER ? serviceOf(home.store).listApps() : serviceOf(home.store).listApps().catch(() => []);
          return (await apps).map((app) => placed(app, home.cluster));
        }),
      );
      return lists.flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
    },
  };
}


/** Records where an app just made lives; when its name is another cluster's app's, removes it again. */
async function place(clusters: Clusters, store: Store, app: AppSummary, cluster: string): Promise<void> {
  try {
    await insertPlacement(clusters.main, { appId: app.id, name: app.name, cluster });
  } catch (err) {
    await storeAdminService(store).deleteApp({ appId: app.id }).catch(() => undefined);
    throw err;
  }
}

/**
 * Export, import and fork over every cluster: an export reads the app where it lives, a fork
 * is made beside its original (a copy within one database), an import goes to `main`.
 */
export function createPortability(target: Store | Clusters, options: PortabilityOptions): Portability {
  const clusters = target instanceof Clusters ? target : new Clusters(target);
  const on = perStore((store) => storePortability(store, options));
  return {
    async checkExportable(appId) {
      return on((await clusters.home(appId)).store).checkExportable(appId);
    },
    async exportApp(appId, writer, onProgress) {
      return on((await clusters.home(appId)).store).exportApp(appId, writer, onProgress);
    },
    async importApp(source, importOptions) {
      const result = await on(clusters.main).importApp(source, importOptions);
      await place(clusters, clusters.main, result.app, MAIN_CLUSTER);
      return { ...result, app: { ...result.app, cluster: MAIN_CLUSTER } };
    },
    async forkApp(input) {
      const home = await clusters.home(input.appId);
      const result = await on(home.store).forkApp(input);
      await place(clusters, home.store, result.app, home.cluster);
      return { ...result, app: { ...result.app, cluster: home.cluster } };
    },
  };
}
