import { Type } from 'typebox';

/** The answer of a configuration's connection test (`POST /:id/test`), for every provider type. */
export const ConnectionTestResult = Type.Object({
  ok: Type.Boolean(),
  /** what failed, or what was checked; never contains the secret */
  message: Type.Union([Type.String(), Type.Null()]),
});
