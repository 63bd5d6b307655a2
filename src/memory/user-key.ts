/** One user's key in an in-process map. NUL separates app and user: Postgres text cannot hold it, so no stored id does. */
export const userKey = (scope: { appId: string; userId: string }): string => `${scope.appId}\u0000${scope.userId}`;
