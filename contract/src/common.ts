import { Type } from 'typebox';

/** Every error answer of the API. */
export const ErrorResponse = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code, e.g. invalid_param, unauthorized, not_found' }),
    message: Type.String({ description: 'Human-readable explanation; for invalid_param it starts with the field name' }),
    status: Type.Integer({ description: 'The HTTP status, repeated' }),
    params: Type.Optional(Type.String({ description: 'The request field the error is about' })),
    request_id: Type.Optional(Type.String({ description: 'The X-Request-Id of the request, to quote when reporting a problem' })),
  },
  { $id: 'ErrorResponse' },
);

/**
 * A time stamp, or null: one schema of two types rather than a union, so that an answer with many of
 * them (the dashboard's 1,000 applications) is serialised without checking each value against the
 * union's options (fast-json-stringify validates a union's every value with Ajv, date-time format included).
 */
export const NullableDateTime = (options: { description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time', ...options });
