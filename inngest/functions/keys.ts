/**
 * A user is only unique within an app: the same user id in two apps is two people, so per-user
 * debounce and concurrency keys name both (a key on the user id alone once folded two apps'
 * backfills into one run and left one app's memories unembedded).
 */
export const USER_KEY = 'event.data.app_id + ":" + event.data.user_id';
