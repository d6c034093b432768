// The store stage's public face: the Store interface and its two drivers, the system catalog,
// and applying migration plans as DDL. Code outside `store/` imports only from here.

export type { ListenOptions, NotificationHandler, Queryable, QueryResult, StatementOptions, Store, Transaction } from './types.js';
export { withStatementTimeout } from './bounded.js';
export { withProbes } from './probed.js';
export type { ProbeRun, StatementKind, StatementProbe } from './probed.js';
export { openStore, embeddedDatabaseDir } from './open.js';
export { primeAllocator } from './pgAllocator.js';
export { Clusters, perStore } from './clusters.js';
export type { AppHome, ClusterView, ClustersOptions, UrlSealer } from './clusters.js';
export type { OpenStoreOptions } from './open.js';
export { sqlState, violatedConstraint } from './errors.js';
export { ALL_USERS, USERS_CHANNEL, rolesChangedNotice, userChangedNotice } from './channels.js';

export { APP_ID_PATTERN, CATALOG_CHANNEL, appSchemaName, isAppId, isAppName } from './catalog/appIds.js';
export { CATALOG_MIGRATIONS, CATALOG_VERSION } from './catalog/migrations.js';
export { catalogVersion, ensureCatalog } from './catalog/ensure.js';
export { deleteApp, findApp, insertApp, listApps, lockApp, updateAppSettings } from './catalog/apps.js';
export { CLUSTER_NAME_PATTERN, MAIN_CLUSTER, PLACEMENTS_CHANNEL, deletePlacement, findPlacement, insertCluster, insertPlacement, isClusterName, listClusterRows, markMoving, movePlacement, placedApps, placementCounts } from './catalog/clusters.js';
export { copyCatalogRows, dropMovedApp, lockAppTablesForCopy } from './catalog/move.js';
export type { ClusterRow, PlacementRow } from './catalog/clusters.js';
export type { AppRow } from './catalog/apps.js';
export { insertSchemaVersion, liveSchema, schemaHistory } from './catalog/schemaVersions.js';
export type { SchemaVersionRow } from './catalog/schemaVersions.js';
export { sha256Bytes } from './sha256.js';
export { adminTokenHash, findAdminToken, insertAdminToken, listAdminTokens, revokeAdminToken } from './catalog/adminTokens.js';
export { insertSigningKey, listSigningKeys, retireSigningKeys } from './catalog/signingKeys.js';
export { documentHash, replaceTrustedDocuments, trustedDocuments } from './catalog/trustedDocuments.js';
export type { TrustedDocumentSet } from './catalog/trustedDocuments.js';
export { TRAFFIC_BUCKETS_MS, addTraffic, deleteTraffic, pruneTraffic, trafficSince } from './catalog/traffic.js';
export type { TrafficRow } from './catalog/traffic.js';
export type { SigningKeyRow } from './catalog/signingKeys.js';
export { insertRefreshToken, lockRefreshToken, markRefreshTokenUsed, pruneRefreshTokens, raiseGeneration, revokeFamily, revokeUserTokens, userGeneration } from './catalog/sessions.js';
export type { RefreshTokenRow } from './catalog/sessions.js';
export { insertMailedToken, pruneMailedTokens, redeemMailedToken, spendMailedTokens } from './catalog/mailedTokens.js';
export type { MailedTokenPurpose } from './catalog/mailedTokens.js';
export { upgradeBuiltins } from './catalog/builtinUpgrade.js';
export { upgradeLinkTimes } from './catalog/linkTimesUpgrade.js';
export {
  MAX_REMOVAL_BACKOFF_SECONDS,
  appFileKeyPrefix,
  claimUpload,
  fileKey,
  releaseUpload,
  expectAppFiles,
  expectUpload,
  finishFileRemoval,
  listFileRemovals,
  noteFileRemovalError,
  queueAppFileRemoval,
  queueFileRemoval,
  takeDueFileRemovals,
} from './catalog/fileRemovals.js';
export type { FileRemovalRow } from './catalog/fileRemovals.js';
export { confirmTotpFactor, deleteTotpFactor, lockTotpFactor, putPendingTotp, totpEnabledSql, totpStatuses, useRecoveryCode, useTotpStep } from './catalog/totp.js';
export type { TotpFactorRow, TotpStatusRow } from './catalog/totp.js';
export {
  countOidcIdentities,
  deleteOidcIdentities,
  deleteOidcProvider,
  findOidcProvider,
  insertOidcIdentity,
  insertOidcProvider,
  listOidcProviders,
  lockOidcIdentity,
  relinkOidcIdentity,
  touchOidcIdentity,
} from './catalog/oidc.js';
export type { OidcProviderRow } from './catalog/oidc.js';

export { applyPlan } from './ddl/applyPlan.js';
export { checkName, derivedName, edgeIndexName, foreignKeyName, indexName, primaryKeyName, uniqueIndexName } from './ddl/names.js';
export {
  claimDeliveries,
  deleteFunctionRow,
  findDelivery,
  findFunction,
  insertDeliveries,
  insertFunction,
  listDeliveries,
  listFunctions,
  pendingDeliveries,
  redeliverDelivery,
  releaseDelivery,
  settleDeliveries,
  sweepDeliveries,
  updateFunctionRow,
} from './catalog/functions.js';
export type { ClaimedDelivery, DeliveryClaim, DeliveryOutcome, DeliveryRow, DeliveryStatus, FunctionKindName, FunctionRow, NewDelivery } from './catalog/functions.js';

export * from './portability/index.js';
export { copyAccountRows, insertPortableOidcIdentity, insertPortableTotpFactor, portableOidcIdentities, portableTotpFactors } from './catalog/portable.js';
export type { PortableOidcIdentity, PortableTotpFactor } from './catalog/portable.js';
