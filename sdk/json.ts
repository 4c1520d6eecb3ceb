// JSON value types shared by every part of the contract.

/** Any value that survives a JSON round trip. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
