// Injection tokens of the HTTP faces.

/** The validated `EngineConfig`. */
export const ENGINE_CONFIG = Symbol('ENGINE_CONFIG');
/** The `ProjectionStorage` of the catalog, audit and checkpoints. */
export const PROJECTION_STORAGE = Symbol('PROJECTION_STORAGE');
/** The `TenantGuardEventStore` (the same object as EVENT_STORE, with its tenant lookups). */
export const TENANT_STORE = Symbol('TENANT_STORE');
