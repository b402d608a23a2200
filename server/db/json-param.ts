/**
 * A `json` query parameter as a Buffer. pg sends a Buffer as is, in binary format, and the binary
 * format of PostgreSQL's json type is its text. A batch parameter then waits out its round trip
 * off the V8 heap: as a string of tens of KB it was promoted to the old generation whenever a
 * young-generation collection fell during the round trip.
 */
export function jsonParam(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
