/** A caveat attached to a result: machine-readable code, human message that says why and what to do. */
export interface Warning {
  code: string;
  message: string;
}
