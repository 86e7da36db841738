// Errors every transport shares: the HTTP server answers a CairnError with 422 and its message, shown as is.

/** A request the app refuses for a reason the user can act on (no such folder, a data folder inside the vault). */
export class CairnError extends Error {}
