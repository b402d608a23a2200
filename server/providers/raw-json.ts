// The upstream's own JSON text of a parsed answer, kept on the answer so the gateway can send it on
// without encoding the object again. It lives under a symbol key, which JSON.stringify skips.
// Whoever changes such an object after parsing must forget its text.

const RAW_JSON = Symbol('raw json');

type WithRawJson = object & { [RAW_JSON]?: string | undefined };

/** Keeps `text`, the JSON `value` was parsed from, on `value`. */
export function keepRawJson<T extends object>(value: T, text: string): T {
  (value as WithRawJson)[RAW_JSON] = text;
  return value;
}

/** The JSON text `value` was parsed from, when it is still what `value` holds. */
export function rawJsonOf(value: object): string | undefined {
  return (value as WithRawJson)[RAW_JSON];
}

/** Call before changing an object that may carry its raw JSON. */
export function forgetRawJson(value: object): void {
  (value as WithRawJson)[RAW_JSON] = undefined;
}
