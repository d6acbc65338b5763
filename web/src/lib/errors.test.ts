import { describe, expect, it } from 'vitest';
import { ApiError, getErrorMessage, isUnauthorizedError, UNEXPECTED_ERROR_MESSAGE } from './errors';

describe('getErrorMessage', () => {
  it('prefers the response detail', () => {
    const error = new ApiError(400, { detail: 'Detail text', message: 'Message text', error: 'Error text' }, 'own');
    expect(getErrorMessage(error)).toBe('Detail text');
  });

  it('falls back to the response message', () => {
    const error = new ApiError(400, { code: 'invalid_param', message: 'user.username: must NOT have more than 150 characters', status: 400 }, 'own');
    expect(getErrorMessage(error)).toBe('user.username: must NOT have more than 150 characters');
  });

  it('falls back to the response error', () => {
    expect(getErrorMessage(new ApiError(500, { error: 'Error text' }, 'own'))).toBe('Error text');
  });

  it('reads the body of errors from other clients (response.data)', () => {
    const error = Object.assign(new Error('Request failed'), { response: { data: { message: 'From data' } } });
    expect(getErrorMessage(error)).toBe('From data');
  });

  it("uses the thrown error's own message when the response says nothing", () => {
    expect(getErrorMessage(new ApiError(502, 'Bad gateway', 'Request failed with status 502'))).toBe('Request failed with status 502');
    expect(getErrorMessage(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
  });

  it('ignores blank or non-text fields', () => {
    const error = new ApiError(400, { detail: '', message: { nested: true }, error: 'Usable' }, 'own');
    expect(getErrorMessage(error)).toBe('Usable');
  });

  it('falls back to the generic text', () => {
    expect(getErrorMessage(undefined)).toBe(UNEXPECTED_ERROR_MESSAGE);
    expect(getErrorMessage(new Error(''))).toBe('An unexpected error occurred');
    expect(getErrorMessage({ some: 'object' })).toBe('An unexpected error occurred');
  });
});

describe('ApiError', () => {
  it('keeps the status, code and field of the server error', () => {
    const error = new ApiError(400, { code: 'invalid_param', message: 'bad', status: 400, params: 'user.username' }, 'own');
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_param');
    expect(error.params).toBe('user.username');
    expect(error.message).toBe('bad');
  });

  it('marks only 401 as unauthorized', () => {
    expect(isUnauthorizedError(new ApiError(401, { code: 'unauthorized' }, 'x'))).toBe(true);
    expect(isUnauthorizedError(new ApiError(403, {}, 'x'))).toBe(false);
    expect(isUnauthorizedError(new Error('401'))).toBe(false);
  });
});
